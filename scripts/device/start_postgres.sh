#!/usr/bin/env bash
# Start a throw-away PostgreSQL on a GPU host that has none (the device image ships no server).
# The server binaries come from the `pgserver` wheel carried in .whl/ (PostgreSQL 16, manylinux);
# PostgreSQL refuses to run as root, so it runs as an unprivileged user made here.
# Usage: scripts/device/start_postgres.sh PORT   -> prints the database URL on stdout.
set -euo pipefail
port=${1:-5432}
root=/tmp/kiln-pg
if [ ! -x "$root/pgserver/pginstall/bin/postgres" ]; then
  mkdir -p "$root" && (cd "$root" && python3 -m zipfile -e "$(ls "$OLDPWD"/.whl/pgserver-*.whl | head -1)" .)
  chmod -R a+rx "$root"
fi
bin=$root/pgserver/pginstall/bin
id kilnpg >/dev/null 2>&1 || useradd -M -s /bin/bash kilnpg 2>/dev/null || adduser --disabled-password --gecos "" --no-create-home kilnpg >/dev/null
data=$root/data-$port
if [ ! -d "$data" ]; then
  mkdir -p "$data" && chown kilnpg "$data"
  su kilnpg -s /bin/bash -c "$bin/initdb -D $data -U postgres --auth=trust -E UTF8 >/dev/null"
fi
su kilnpg -s /bin/bash -c "$bin/pg_ctl -D $data status >/dev/null" ||  # already up: a second call on a held machine
  su kilnpg -s /bin/bash -c "$bin/pg_ctl -D $data -o '-p $port -k /tmp -c max_connections=300 -c fsync=on' -l $data/log -w start >/dev/null"
echo "postgresql+psycopg://postgres@127.0.0.1:$port/postgres"
