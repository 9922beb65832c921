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
# all_gpu_tests PREFILL_S TESTS_S: compile on this host what the carried cache lacks for the GPU
# tests (scripts/device/prefill_gpu_tests.py), then run every one; logs under $OUT.
all_gpu_tests() {
  timeout "$1" python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1
  echo "prefill rc=$? ok=$(grep -c '^ok' $OUT/prefill.log)"; grep -E "^FAIL|Error" $OUT/prefill.log | head -5 | cut -c1-200
  timeout "$2" python3 -m pytest -q -p no:cacheprovider -rA tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
  echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -12 | cut -c1-250
}
# suite_replay REPLAY_JSON TIMEOUT_S: `kiln bench gemm --replay` of the whole suite (each stored winner
# re-timed beside the library), its table echoed; the result is $OUT/gemm_replay.json.
suite_replay() {
  timeout "$2" python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay "$1" --out $OUT/gemm_replay.json \
    > $OUT/replay.log 2>&1
  echo "replay rc=$?"; grep -v '^{' $OUT/replay.log | tail -22 | cut -c1-150
}
# suite_search "NAME ..." TIMEOUT_S: `kiln bench gemm --limit 16` on these suite shapes (a search, not a
# replay), after `kiln compile --file` has compiled in one batch what their selections need and the
# carried cache lacks; the result is $OUT/gemm_search.json.
suite_search() {
  python3 - $1 <<'PY'
import json, os, sys
carried = json.load(open(".devcarry/gemm_problems.json"))
chosen = [p for name, p in zip(carried["names"], carried["problems"], strict=True) if name in sys.argv[1:]]
json.dump({"problems": chosen}, open(os.environ["OUT"] + "/search_problems.json", "w"))
PY
  timeout 300 python3 -m service.cli.main compile --file $OUT/search_problems.json --arch sm_90a --limit 16 \
    > $OUT/search_prefill.log 2>&1
  echo "search prefill rc=$? cached: $(grep -c '^ *cached ' $OUT/search_prefill.log), compiled here: $(grep -c '^ *ok ' $OUT/search_prefill.log)"
  timeout "$2" python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --only $1 \
    --out $OUT/gemm_search.json > $OUT/search.log 2>&1
  echo "search rc=$?"; grep -v '^{' $OUT/search.log | tail -14 | cut -c1-150
}
# ncu_profile RESULT_JSON TIMEOUT_S: Nsight Compute's full set on each stored winner of RESULT_JSON
# beside the library's call (`kiln bench profile`); the raw and details pages come back xz'd (and, with
# NCU_SASS=1, the SASS source page).
ncu_profile() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
  timeout "$2" /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
    -o $OUT/prof python3 -m bench.kernel_profile --result "$1" > $OUT/ncu.log 2>&1
  echo "full rc=$?"; tail -3 $OUT/ncu.log | cut -c1-300
  /usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page raw --csv > $OUT/raw.csv 2>> $OUT/ncu.log
  /usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page details --csv > $OUT/details.csv 2>> $OUT/ncu.log
  # NCU_SASS=1: the source page too (every kernel's SASS with its samples, for `kiln bench sass-mix`)
  if [ "${NCU_SASS:-0}" = 1 ]; then
    /usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>> $OUT/ncu.log
  fi
  wc -c $OUT/raw.csv $OUT/details.csv $OUT/sass.csv 2>/dev/null
  xz -T0 $OUT/raw.csv $OUT/details.csv $OUT/sass.csv 2>/dev/null; rm -f $OUT/prof.ncu-rep; ls -la $OUT
}

# power_medians LOG: a `kiln bench power` log's per-shape medians, each kernel over the library (the
# library's own figures as they are), then any kernel that failed verification.
power_medians() {
  grep '^{' "$1" | python3 -c "
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    for k, m in d.get('median', {}).items():
        print(d['shape'], k[:70], {a.replace('_over_library', '/lib'): round(b, 4) for a, b in m.items() if 'over' in a or k == 'library'})" 2>/dev/null | cut -c1-330
  grep -E "FAILED|Error" "$1" | head -5 | cut -c1-250
}
# gpu_tests_matching FILTER TIMEOUT_S: tests/gpu/test_gpu_tuning.py's GPU tests whose ids match the
# pytest -k FILTER; the log is $OUT/gpu_tests.log.
gpu_tests_matching() {
  timeout "$2" python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k "$1" \
    > $OUT/gpu_tests.log 2>&1
  echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -8 | cut -c1-250
}
# pairs_script NAME TIMEOUT_S: scripts/device/NAME.py's twins (each verified, two interleaved turns
# beside the library); the result is $OUT/NAME_pairs.json, the table $OUT/NAME.log.
pairs_script() {
  timeout "$2" python3 scripts/device/$1.py $OUT/$1_pairs.json > $OUT/$1.log 2>&1
  echo "pairs rc=$?"; grep -v '^{' $OUT/$1.log | cut -c1-160 | tail -30
}
