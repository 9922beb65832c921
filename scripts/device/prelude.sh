# Sourced by the device scripts: the carried wheels into /tmp/site (once per machine), the
# environment every run uses, and the carried compile cache into ./.fleet-data.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
mkdir -p .fleet-data
[ -f .devcarry/cache.txz ] && python3 -c "import tarfile; tarfile.open('.devcarry/cache.txz').extractall('.fleet-data')"
ls .fleet-data/compile-cache | wc -l
