#!/usr/bin/env bash
# Session 29, run A (nvidia-h200, ~6 min): session 28's run B, which that session's paused device
# loans never ran, plus cuBLAS's decode.m128 SASS. The GPU tests of the weight's L2 prefetch
# (KernelConfig.l2_prefetch) first, then scripts/device/session28_b.py's interleaved pairs (each decode
# winner and llama7b.down beside its 8/16/32-k-tile prefetch twins, two turns), then Nsight Compute on
# decode.m128's winner and its 16-ahead twin (scripts/device/session28_b_profile.json) beside cuBLAS and
# a plain reduction over the weight, with the SASS page: how nvjet's 2-slice split-K kernel walks K
# while holding 72% of DRAM's bandwidth.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cublas', torch._C._cuda_getCompiledVersion() if hasattr(torch._C, '_cuda_getCompiledVersion') else '?')"
python3 -c "import glob, torch, os; print([p for p in glob.glob(os.path.dirname(torch.__file__) + '/../nvidia/*/lib/libcublasLt*')] or glob.glob('/usr/local/cuda/lib64/libcublasLt*'))"
timeout 240 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k "l2_prefetch" > $OUT/gpu_tests.log 2>&1
echo "prefetch gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -8 | cut -c1-250
timeout 240 python3 scripts/device/session28_b.py $OUT/pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs.log | cut -c1-170 | tail -40
NCU_SASS=1 ncu_profile scripts/device/session28_b_profile.json 200
return_new_cache
