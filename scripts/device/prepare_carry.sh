#!/usr/bin/env bash
# Builds what a device run carries (`carry: [".whl", ".devcarry"]`; both git-ignored):
#   .whl/       cp312 manylinux wheels of what the GPU host's Python lacks (it has torch,
#               cuda-python, jinja2, httpx, numpy and no internet); prelude.sh installs them
#   .devcarry/  suite.json (from ../shared, or $KILN_SUITE), conv_problems.json and gemm_problems.json
#               (the suite's convs and GEMMs as `kiln compile --file` problems), commit (for the results' provenance) and cache.txz
#               (the CPU host's compile cache, $KILN_DATA_DIR or ./.fleet-data, so the run spends its
#               minutes on the GPU; prelude.sh unpacks it, return_new_cache sends back what it added)
# Usage: bash scripts/device/prepare_carry.sh   (after compiling what the run needs, e.g.
#   KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python scripts/device/prefill_gpu_tests.py, or the whole
#   GEMM suite search: KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/kiln compile --file
#   .devcarry/gemm_problems.json --limit 16, ~75 min on 2 cores; then run this again to carry it)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PY:-.venv/bin/python}
if [ ! -d .whl ] || [ -z "$(ls .whl 2>/dev/null)" ]; then
  "$PY" -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp --no-deps -d .whl \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    pydantic==2.13.4 pydantic-core==2.46.4 annotated-types typing-inspection pydantic-settings python-dotenv \
    nvidia-cutlass==4.2.0.0 nvidia-cuda-crt==13.0.88 nvidia-cuda-cccl==13.0.85 nvidia-cuda-runtime==13.0.96 \
    fastapi starlette sqlalchemy alembic mako uvicorn prometheus-client annotated-doc python-multipart \
    opentelemetry-api importlib-metadata pgserver psycopg psycopg-binary
fi
# PostgreSQL's wheels (pgserver, psycopg: 15 MB) travel only to runs that start a server
# (scripts/device/start_postgres.sh): with them the carry outgrows the run's 64 MiB. KILN_CARRY_POSTGRES=1 brings them.
mkdir -p .whl-postgres
if [ "${KILN_CARRY_POSTGRES:-0}" = 1 ]; then
  mv .whl-postgres/*.whl .whl/ 2>/dev/null || true
else
  mv .whl/pgserver-*.whl .whl/psycopg-*.whl .whl/psycopg_binary-*.whl .whl-postgres/ 2>/dev/null || true
fi
mkdir -p .devcarry
cp "${KILN_SUITE:-../shared/bench/suite.json}" .devcarry/suite.json
git rev-parse --short HEAD > .devcarry/commit
DATA=${KILN_DATA_DIR:-$PWD/.fleet-data} "$PY" - <<'PY'
import json, os, tarfile
from pathlib import Path

suite = json.loads(Path(".devcarry/suite.json").read_text())
convs = [{**{k: v for k, v in e.items() if k != "name"}, "op": "conv2d"} for e in suite.get("conv2d", [])]
Path(".devcarry/conv_problems.json").write_text(json.dumps(convs))
gemms = suite.get("gemm", [])  # `kiln compile --file` reads "problems"; "names" lets a run pick some
Path(".devcarry/gemm_problems.json").write_text(json.dumps(
    {"names": [g["name"] for g in gemms], "problems": [{**{k: v for k, v in g.items() if k != "name"}, "op": "gemm"} for g in gemms]}))
data = Path(os.environ["DATA"])
count = 0
with tarfile.open(".devcarry/cache.txz", "w:xz") as tar:
    for root, dirs, files in os.walk(data / "compile-cache"):
        dirs[:] = [d for d in dirs if d not in ("pch", "locks")]  # host-specific, rebuilt there
        for name in files:
            if not name.endswith((".lock", ".tmp")):
                full = Path(root) / name
                tar.add(full, arcname=str(full.relative_to(data)))
                count += 1
print(f"{len(convs)} conv problems, {count} cache files, "
      f"cache.txz {Path('.devcarry/cache.txz').stat().st_size / 1e6:.1f} MB, commit {Path('.devcarry/commit').read_text().strip()}")
PY
