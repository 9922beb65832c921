# Sourced by the device scripts: the carried wheels into /tmp/site (once per machine), the
# environment every run uses, and the carried compile cache into ./.fleet-data.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
mkdir -p .fleet-data
[ -f .devcarry/cache.txz ] && python3 -c "import tarfile; tarfile.open('.devcarry/cache.txz').extractall('.fleet-data')"
ls .fleet-data/compile-cache | wc -l
# return_new_cache: what this run compiled (compile-cache entries newer than the extraction above),
# xz'd and split into 15 MB parts under $OUT (files come back at most 16 MiB each, 8 in all).
# Here: `cat cache-new.txz.part* | tar xJf - -C .fleet-data`, then re-tar what the next run needs.
touch .fleet-data/.extracted
return_new_cache() {
  (cd .fleet-data && find compile-cache -newer .extracted -type f ! -path '*/pch/*' ! -path '*/locks/*' ! -name '*.tmp' ! -name '*.lock' -print0 \
    | tar --null -T - -cf - | xz -T0 -6 | split -b 15M - "$OUT/cache-new.txz.part")
  ls -la "$OUT"/cache-new.txz.part* 2>/dev/null | awk '{print $5, $9}'
}
