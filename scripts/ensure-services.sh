#!/usr/bin/env bash
# Start what the tests need if it is not running: PostgreSQL on 127.0.0.1:5432 (trust auth),
# wrk for the load smoke test. Idempotent; safe on a machine where all of it already runs.
set -euo pipefail

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  fi
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
pg_isready -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }

apt_install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  fi
}
command -v wrk >/dev/null 2>&1 || apt_install wrk || echo "wrk not installed: the load test uses the Python client" >&2
# The dashboard tests drive Debian's Chromium through Playwright (Playwright's own browser download
# cannot work on these machines).
command -v chromium >/dev/null 2>&1 || apt_install chromium || { echo "chromium is needed for the dashboard tests" >&2; exit 1; }
