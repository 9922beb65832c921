#!/usr/bin/env bash
# What is left to run on GPUs (written at the end of session 7). Session 7 measured the conv suite
# with Kiln's persistent sm90 convs and the folded stem (session7_e.sh: 0.986 / 2.07 / 1.04) and
# every GPU test (session7_f.sh: 31 passed). What a next session should measure once its code lands:
#  1. the pointwise conv layers (0.80-0.96 vs cuDNN alone, memory-bound GEMMs at ~1.9 TB/s): an
#     epilogue store change, measured with `kiln bench conv2d --only r50.res2.1x1a r50.res3.1x1b`;
#  2. GEMM (#4): the one-wave shapes (square.1024 0.87, attn_out 0.92) and the fused-epilogue cost
#     (+14%), as in session 6's notes;
#  3. every GPU test on a just-started machine (the adaptive settle was tested on a warm one).
# Recipe: compile on the GPU host's 16 cores (`kiln compile --file .devcarry/conv_problems.json`,
# whose entries need "op": "conv2d"), source scripts/device/prelude.sh. The whole compile cache
# (~200 cubins) is over the 16 MiB a returned file may be and the 64 MiB the working tree may be:
# call `return_new_cache` (prelude.sh) to bring back only what the run compiled, in 15 MB parts,
# and carry a cache of just what the next run needs.
set -u
source scripts/device/prelude.sh
timeout 280 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"
return_new_cache
timeout 150 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -20 | cut -c1-160
