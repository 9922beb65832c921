#!/usr/bin/env bash
# Session 36, run C (~1 min): o_proj's 256x128 cooperative 1x2 kernel and cuBLAS over growing K
# (`kiln bench pairs --ksweep --ksweep-only llama7b.o_proj`): a straight line through each splits the
# 2% more cycles run B found (the kernel alone, PDL off) into a fixed part and a mainloop rate.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 -m bench.gemm_pairs --ksweep --ksweep-only llama7b.o_proj --out $OUT/ksweep_oproj.json \
  > $OUT/ksweep.log 2>&1
echo "ksweep rc=$?"; grep -E "K=" $OUT/ksweep.log | cut -c1-150
