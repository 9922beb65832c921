#!/usr/bin/env bash
# Session 30, run B (~4 min): session 29's run C on the H200 it was written for: `kiln bench
# tile-floor` (each decode shape's weight read in a GEMM's tile order, one CTA per SM at 32-128 KB in
# flight, beside the linear read and cuBLAS), then `kiln bench floor`.
set -u
bash scripts/device/session29_c.sh
