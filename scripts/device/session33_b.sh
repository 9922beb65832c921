#!/usr/bin/env bash
# Session 33, run B (~9 min): the full GEMM suite search (`kiln bench gemm --limit 16`) on whatever
# card the call gets. Every session 32-33 call that asked for an H200 got an H100, and the service
# routes winners by GPU model, so an H100 fleet tunes its own: this is its first full search. About
# half of the 167 selected cubins were compiled on the CPU host first (`kiln compile --file
# .devcarry/gemm_problems.json --arch sm_90a --limit 16`, cut off when the run was due); the search's
# prefill compiles the rest here on 16 cores (suite_search in prelude.sh) and ncu_profile scripts/device/session33_b_profile.json 200
python3 -m bench.ncu_digest $OUT/raw.csv.xz --metric lts__t_sector_hit_rate.pct dram__bytes_write.sum | cut -c1-250
return_new_cache
# brings them back. Then Nsight Compute on llama7b.down's and o_proj's 256x128 winner beside its forced
# stream-K twin (session33_b_profile.json): does stream-K's loss in run A show as DRAM bytes (the L2)?
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
suite_search "$(python3 -c "import json; print(' '.join(json.load(open('.devcarry/gemm_problems.json'))['names']))")" 260
ncu_profile scripts/device/session33_b_profile.json 200
python3 -m bench.ncu_digest $OUT/raw.csv.xz --metric lts__t_sector_hit_rate.pct dram__bytes_write.sum | cut -c1-250
return_new_cache
