"""`kiln bench chain` (`python -m bench.launch_chain`): time per launch inside a run of back-to-back launches.

    python -m bench.launch_chain --result bench/results/gemm_….json --only square.1024 [--launches 200]

The suite benchmarks time every launch between its own pair of CUDA events, which is what a
kernel costs alone; a model runs kernels back to back (eagerly or from a CUDA graph), where a
kernel's launch and prologue can overlap the previous kernel's tail when it is launched with
programmatic dependent launch (Kiln's sm90 kernels, cuBLAS's nvjet kernels). This times N launches
between one pair of events, for each named problem's stored winner and for the library's own call,
over rotating operands larger than the L2. Run it with KILN_PDL=0 and without to see what the
overlap is worth. Prints one JSON line per problem.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

import torch

from bench.kernel_profile import compile_winners, conv_launchers, gemm_launchers, stored_rows
from worker.gpu_bench import L2_BYTES


def operand_bytes(row: dict) -> int:
    """Bytes one operand set holds (inputs and output), from a stored suite row."""
    if "spec" in row:  # a conv layer: the NHWC input and the implicit GEMM's M x N output
        spec, (m, n, _) = row["spec"], row["implicit_gemm_mnk"]
        return 2 * (spec["n"] * spec["h"] * spec["w"] * spec["c"] + m * n)
    return 2 * (row["m"] * row["k"] + row["n"] * row["k"] + row["m"] * row["n"])


def per_launch_us(fns: list, launches: int) -> float:
    """Median over five runs of `launches` calls (cycling through fns) between two events."""
    for f in fns:
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(20_000_000)  # the host queues ahead: launch overhead stays outside the events
        start.record()
        for i in range(launches):
            fns[i % len(fns)]()
        end.record()
        torch.cuda.synchronize()
        times.append(1000.0 * start.elapsed_time(end) / launches)
    return sorted(times)[2]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--result", type=Path, action="append", required=True)
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--launches", type=int, default=200)
    args = p.parse_args()
    torch.backends.cudnn.benchmark = True
    rows = stored_rows(args.result, args.only)
    cubins = compile_winners(rows)
    for row in rows:
        make = conv_launchers if "spec" in row else gemm_launchers
        sets = [make(row, cubins) for _ in range(max(2, min(32, math.ceil(2 * L2_BYTES / operand_bytes(row)))))]
        kiln = per_launch_us([s["kiln"] for s in sets], args.launches)
        library = per_launch_us([s["library"] for s in sets], args.launches)
        print(json.dumps({"name": row["name"], "pdl": os.environ.get("KILN_PDL", "1") != "0", "sets": len(sets),
                          "kiln_us_per_launch": kiln, "library_us_per_launch": library,
                          "ratio_library_over_kiln": library / kiln}), flush=True)


if __name__ == "__main__":
    main()
