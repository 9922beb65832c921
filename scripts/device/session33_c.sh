#!/usr/bin/env bash
# Session 33, run C (~4 min): cuBLAS's H100 tile and cluster (128x256 under 2x1) beside run B's H100
# winners (session33_c.py, two interleaved turns), then Nsight Compute on o_proj's winner beside its
# 128x256 2x1 twin (session33_c_profile.json): does the pairing cut the L2 read sectors as nvjet's
# does? Every cubin is in the suite selection compiled for run B (compile_twins.py session33_c).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 scripts/device/session33_c.py $OUT/session33_c_pairs.json > $OUT/session33_c.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/session33_c.log | grep -E "µs" | awk '{printf "%s %s %s %s\n", $1, $2, $4, $7}' | cut -c1-160
ncu_profile scripts/device/session33_c_profile.json 150
python3 -m bench.ncu_digest $OUT/raw.csv.xz --metric lts__t_sector_hit_rate.pct | cut -c1-250
return_new_cache
