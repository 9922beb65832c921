"""`kiln bench gemm`: tune every GEMM of the suite through the worker's own tuning step.

    python -m bench.gemm_suite --suite ../shared/bench/suite.json [--only NAME ...] [--limit 8]
    python -m bench.gemm_suite --replay bench/results/gemm_….json   # re-time those winners only

For each shape: the winner's config, TFLOP/s, the best library path (cuBLAS GEMM + torch ops,
and cuBLASLt's fused epilogues where torch exposes them) measured in the same process, the
ratio, the candidate funnel and the tuning time (cold; warm for the first shape: compile cache
hot), and the names of the kernels cuBLAS itself ran for the plain GEMM (from torch.profiler:
their tile, cluster and split-K are what a Kiln winner is up against). Writes
bench/results/gemm_<gpu>_<date>.json and prints a table last.

`--replay` skips the search: each shape runs exactly the winner a stored result names (verified,
then timed against the library in the same process). It answers "what did a runtime or template
change do to the kernels we ship", in minutes instead of a full re-tune's compile budget.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import time
from pathlib import Path
from typing import Any

from bench.common import device_provenance, geomean, save_result
from service.specs import GemmSpec
from worker.gpu_step import GpuTuningStep
from worker.kernels.config import KernelConfig


def _ratio(library_us: float | None, kiln_us: float | None) -> float | None:
    return library_us / kiln_us if library_us and kiln_us else None


def spec_of(entry: dict[str, Any]) -> GemmSpec:
    """A suite GEMM entry as the spec a client would POST (fp16 and no epilogue unless it says)."""
    return GemmSpec(m=entry["m"], n=entry["n"], k=entry["k"], dtype=entry.get("dtype", "f16"),
                    epilogue=entry.get("epilogue", "none"))


def suite_specs(suite_file: Path) -> list[tuple[str, GemmSpec]]:
    """(name, spec) for each GEMM in a suite file."""
    return [(e["name"], spec_of(e)) for e in json.loads(suite_file.read_text())["gemm"]]


def tune_one(step: GpuTuningStep, entry: dict[str, Any], replay: KernelConfig | None = None) -> dict[str, Any]:
    spec = spec_of(entry)
    counters: dict[str, Any] = {}
    t0 = time.monotonic()
    if replay is not None:
        out = step.tune_configs(spec, [replay], "sm_90a", lambda **kw: counters.update(kw))
    else:
        out = step.tune(spec, "sm_90a", lambda **kw: counters.update(kw))
    seconds = time.monotonic() - t0
    ratio = out.baseline_time_us / out.kernel_time_us if out.kernel_time_us and out.baseline_time_us else None
    statuses: dict[str, int] = {}
    for c in out.candidates:
        statuses[c["status"]] = statuses.get(c["status"], 0) + 1
    return {
        "name": entry["name"], "m": spec.m, "n": spec.n, "k": spec.k, "dtype": spec.dtype.value,
        "epilogue": spec.epilogue.value, "winner": out.config, "winner_name": out.kernels[0].meta["name"] if out.kernels else None,
        "kiln_us": out.kernel_time_us, "kiln_spread_us": out.kernel_spread_us, "kiln_tflops": out.tflops,
        "library": out.baseline_library, "library_us": out.baseline_time_us,
        "library_tflops": spec.flops / out.baseline_time_us / 1e6 if out.baseline_time_us else None,
        "ratio_library_over_kiln": ratio, "enumerated": counters.get("generated"), "compiled": counters.get("compiled"),
        "verified": counters.get("verified"), "timed": counters.get("timed"), "candidate_status": statuses,
        "tuning_seconds_cold": round(seconds, 1), "candidates": out.candidates,
        "library_times_us": out.library_times_us,
        "ratio_unfused_library_over_kiln": _ratio(out.library_times_us.get("cublas+torch"), out.kernel_time_us),
        "phase_seconds": out.phase_seconds, "compiled_fresh": out.compiled_fresh,
    }


def cublas_kernels(entry: dict[str, Any]) -> list[str]:
    """The GPU kernels torch's F.linear launches for this shape (no epilogue). Run in a child
    process after every shape is tuned: CUPTI, loaded by the profiler, aborted this process at
    exit on the H200 host ("free(): invalid pointer") once it had also used cuda-python."""
    import torch
    import torch.nn.functional as F
    from torch.profiler import ProfilerActivity, profile

    dtype = torch.bfloat16 if entry.get("dtype") == "bf16" else torch.float16
    x = torch.randn(entry["m"], entry["k"], device="cuda", dtype=dtype)
    w = torch.randn(entry["n"], entry["k"], device="cuda", dtype=dtype)
    for _ in range(3):
        F.linear(x, w)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        F.linear(x, w)
        torch.cuda.synchronize()
    return sorted({e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", type=Path, default=Path("../shared/bench/suite.json"))
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--limit", type=int, default=8, help="compiled variants per shape")
    p.add_argument("--warm", type=int, default=1, help="re-tune this many shapes with the compile cache hot")
    p.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    p.add_argument("--replay", type=Path, default=None,
                   help="a stored gemm result: re-time each shape's winner instead of searching")
    p.add_argument("--twins", action="store_true",
                   help="also tune each epilogue shape without its epilogue: the cost of fusing it")
    args = p.parse_args()
    suite = json.loads(args.suite.read_text())["gemm"]
    if args.only:
        suite = [g for g in suite if g["name"] in args.only]
    step = GpuTuningStep(0, limit=args.limit, jobs=os.cpu_count())
    winners = ({r["name"]: KernelConfig.from_dict(r["winner"]) for r in json.loads(args.replay.read_text())["shapes"]}
               if args.replay else {})
    if winners:  # one parallel compile batch (each shape's tune call then hits the cache)
        suite = [g for g in suite if g["name"] in winners]
        step.compiler.compile_all([winners[g["name"]] for g in suite], target_arch="sm_90a")
    rows = []
    for i, entry in enumerate(suite):
        row = tune_one(step, entry, winners.get(entry["name"]))
        if args.replay:
            row["replayed_from"] = str(args.replay)
        elif i < args.warm:
            t0 = time.monotonic()
            warm = step.tune(spec_of(entry), "sm_90a", lambda **kw: None)
            row["tuning_seconds_warm"] = round(time.monotonic() - t0, 1)
            row["phase_seconds_warm"] = warm.phase_seconds
        if args.twins and row["epilogue"] != "none" and not args.replay:
            twin = tune_one(step, {**entry, "epilogue": "none"})
            row["twin_no_epilogue_us"] = twin["kiln_us"]
            row["twin_no_epilogue_winner"] = twin["winner_name"]
            row["epilogue_overhead"] = row["kiln_us"] / twin["kiln_us"] - 1 if twin["kiln_us"] else None
        rows.append(row)
        if args.out:  # after every shape, so a run cut short still leaves its numbers
            args.out.write_text(json.dumps({"partial": True, "shapes": rows}, indent=1, default=str))
        print(json.dumps({k: row[k] for k in ("name", "winner_name", "kiln_tflops", "library", "library_tflops",
                                              "ratio_library_over_kiln", "tuning_seconds_cold")}), flush=True)
    step.close()  # the measurement process: its GPU memory back before the profiler's child runs
    try:
        with mp.get_context("spawn").Pool(1) as pool:
            names = pool.map(cublas_kernels, suite)
    except Exception as exc:  # a diagnostic: never lose the run's numbers over it
        names = [[f"profiler failed: {exc}"]] * len(suite)
    for row, kernels in zip(rows, names, strict=True):
        row["cublas_kernels"] = kernels
    geo = geomean([r["ratio_library_over_kiln"] for r in rows])
    dev = step.device()
    payload = {**device_provenance(dev),
               "benchmark": "gemm_suite", "limit": args.limit, "geomean_library_over_kiln": geo, "shapes": rows}
    save_result(payload, "gemm", dev.gpu_name, args.out)
    print(f"\n{'shape':<22}{'M×N×K':>20}{'epilogue':>11}{'Kiln TF/s':>11}{'lib TF/s':>10}{'lib/Kiln':>10}{'tune s':>8}")
    for r in rows:
        kt = f"{r['kiln_tflops']:.0f}" if r["kiln_tflops"] else "-"
        lt = f"{r['library_tflops']:.0f}" if r["library_tflops"] else "-"
        ratio = f"{r['ratio_library_over_kiln']:.2f}" if r["ratio_library_over_kiln"] else "-"
        print(f"{r['name']:<22}{r['m']:>7}×{r['n']}×{r['k']:<6}{r['epilogue']:>11}{kt:>11}{lt:>10}{ratio:>10}{r['tuning_seconds_cold']:>8}")
    print(f"geometric mean library/Kiln: {geo:.3f}" if geo else "no ratios")


if __name__ == "__main__":
    main()
