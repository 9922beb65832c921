#!/usr/bin/env bash
# Session 29, run C (~3 min): is the decode kernels' missing bandwidth in the order a GEMM reads the
# weight? `kiln bench tile-floor` reads each decode shape's W in tile order (rows per CTA, k-tile bytes,
# K slices, row-major or pre-packed blocked) with plain loads beside the linear read and cuBLAS, then
# `kiln bench floor` gives this machine's linear floor table (session 14's, re-measured).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 300 python3 -m bench.tile_order_floor --out $OUT/tile_floor.json > $OUT/tile_floor.log 2>&1
echo "tile floor rc=$?"; cat $OUT/tile_floor.log | cut -c1-330 | tail -24
timeout 150 python3 -m bench.stream_floor --out $OUT/floor.json > $OUT/floor.log 2>&1
echo "floor rc=$?"; tail -4 $OUT/floor.log | cut -c1-250
