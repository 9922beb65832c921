"""`python -m bench.turn_profile`: each launch's time by its place in a timing turn, Kiln's winners against the library.

    kiln bench turns --result bench/results/gemm_h100_….json --only llama7b.o_proj llama7b.down \\
        [--extra twins.json] [--turns 20] [--reps 60] [--out result.json]

The suite times in turns (worker/gpu_bench.py: `time_interleaved` over `time_launches`), each turn
opened by a sleep kernel that lets the host queue ahead, so the GPU starts every turn from near idle
and re-enters its power cap during it. Session 35 found the compute-bound winners further behind
cuBLAS in that timing (o_proj 0.974) than under sustained load (0.992, `kiln bench power`), and
drawing 5-19% more watts at equal cycles: if a hungrier kernel is clocked down sooner after idle,
its launches slow down earlier in each turn than the library's. This runs exactly the suite's turn
(the same `time_launches`), the kernels taking turns, and reports each launch index's median over
the turns, plus each kernel's time over the library's in the turn's first, middle and last thirds.
Every Kiln kernel is verified against a float32 reference first (`bench.power_draw.launchers`).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from bench.common import device_provenance, save_result
from bench.power_draw import add_winner_arguments, launchers, over_library, shape_rows


def by_index(turns: list[list[float]]) -> list[float]:
    """The median over turns of each launch index's time (turns of equal length)."""
    return [statistics.median(times) for times in zip(*turns, strict=True)]


def thirds(profile: list[float]) -> dict[str, float]:
    """The median launch time in the turn's first, middle and last third."""
    n = len(profile)
    a, b = n // 3, 2 * n // 3
    return {"first": statistics.median(profile[:a]), "middle": statistics.median(profile[a:b]),
            "last": statistics.median(profile[b:])}


def summary(profiles: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Per kernel: its thirds' medians and the whole turn's, and each over the library's."""
    out: dict[str, dict[str, float]] = {}
    for kernel, profile in profiles.items():
        out[kernel] = {**thirds(profile), "turn": statistics.median(profile)}
    return over_library(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_winner_arguments(p)
    p.add_argument("--turns", type=int, default=20, help="turns per kernel, the kernels taking turns")
    p.add_argument("--reps", type=int, default=60, help="launches per turn")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    if args.reps < 3:
        p.error("--reps must be at least 3 (the turn is split in thirds)")
    import torch

    from bench.kernel_profile import compile_winners
    from worker.device import visible_gpus
    from worker.gpu_bench import settle, time_launches

    shapes = shape_rows(args.result + args.extra, args.only)
    cubins = compile_winners([r for rows in shapes.values() for r in rows])
    out_rows: list[dict[str, Any]] = []
    for name, rows in shapes.items():
        launch, sets, failed = launchers(rows, cubins)
        fns = {kernel: [(lambda f=f, i=i: f(i)) for i in range(sets)] for kernel, f in launch.items()}
        settle([f for group in fns.values() for f in group])
        turns: dict[str, list[list[float]]] = {kernel: [] for kernel in fns}
        for _ in range(args.turns):
            for kernel, group in fns.items():
                turns[kernel].append(time_launches(group, args.reps))
        profiles = {kernel: by_index(t) for kernel, t in turns.items()}
        med = summary(profiles)
        out_rows.append({"shape": name, "operand_sets": sets, "failed": failed, "median": med,
                         "profile_us": profiles})
        for kernel, m in med.items():
            ratios = " ".join(f"{k.split('_')[0]} {v:.4f}" for k, v in m.items() if k.endswith("_over_library"))
            print(f"{name:20s} {kernel[:70]:70s} first {m['first']:9.2f} last {m['last']:9.2f} µs  {ratios}", flush=True)
    dev = next(d for d in visible_gpus() if d.gpu_index == torch.cuda.current_device())
    payload = {**device_provenance(dev), "benchmark": "turn_profile", "turns": args.turns, "reps": args.reps,
               "shapes": out_rows}
    print(save_result(payload, "turn_profile", dev.gpu_name, args.out))


if __name__ == "__main__":
    main()
