"""`kiln bench overhead`: host time per launch of a Kiln kernel from PyTorch, against F.linear.

    python -m bench.launch_overhead [--calls 256] [--rounds 41] [--out FILE]

Host time only. Each round enqueues `--calls` launches of a small GEMM (64×1024×1024, bias+GELU
fused) without synchronizing and stops the clock before it synchronizes. Two things keep the GPU
out of the figure: a round stays below the launch queue's depth (a full queue blocks the host
until the GPU drains it, and the loop would then time the kernel), and the kernel's own GPU time
(reported as `gpu_us_per_kernel`) is shorter than a launch's host cost. Reports the median over
the rounds for: KilnGemm.__call__ with a preallocated output (the path kiln::linear
takes), KilnGemm allocating its output, a bound call (`KilnGemm.bind`: operands checked once),
the bare launch (params already packed), the checks alone (no launch), torch's F.linear
(cuBLAS) and F.linear followed by F.gelu (what it replaces); the KilnGemm paths both through
cuda-python's launch wrapper (the default) and the ctypes driver call (`KILN_LAUNCH=driver`),
each checked against the reference first. Rounds of all paths interleave, so no path gains from
running later. Writes bench/results/overhead_<gpu>_<date>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from bench.common import provenance, save_result
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.device import visible_gpus
from worker.kernels.compiler import Compiler
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler
from worker.runtime import driver_launch
from worker.runtime.launch_meta import launch_meta
from worker.runtime.launcher import PackedArgs
from worker.runtime.torch_gemm import KilnGemm

CFG = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (64, 32, 64),
                   schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem,
                   tile_scheduler=TileScheduler.persistent)


M, N, K = 64, 1024, 1024


def per_call_us(paths: dict[str, tuple[bool, Any]], calls: int, rounds: int) -> dict[str, float]:
    """Median host microseconds per call of each path; the clock stops before the synchronize that
    ends a round. Rounds of the paths interleave: measured one after the other, whichever path ran
    first came out slower on the H200 host (by up to 5 µs a call)."""
    times: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(rounds):
        for name, (driver, fn) in paths.items():
            driver_launch.ENABLED = driver
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            times[name].append((time.perf_counter() - t0) / calls * 1e6)
            torch.cuda.synchronize()
    return {name: round(statistics.median(ts), 2) for name, ts in times.items()}


def gpu_us_per_kernel(fn: Any, calls: int) -> float:
    """GPU time of one call, from CUDA events around a synchronized batch."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) * 1e3 / calls


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=256, help="launches per round (keep below the queue depth)")
    p.add_argument("--rounds", type=int, default=41)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    cache = Path(os.environ.get("KILN_DATA_DIR", tempfile.mkdtemp())) / "compile-cache"
    [out] = Compiler(cache, jobs=1).compile_all([CFG], target_arch="sm_90a")
    assert out.ok, out.error
    kern = KilnGemm(out.cubin or b"", launch_meta(CFG), {"op": "gemm", "dtype": "f16", "epilogue": "bias_gelu"})
    x = torch.randn(M, K, device="cuda", dtype=torch.half)
    w = torch.randn(N, K, device="cuda", dtype=torch.half)
    b = torch.randn(N, device="cuda", dtype=torch.half)
    y = torch.empty(M, N, device="cuda", dtype=torch.half)
    ref = F.gelu(F.linear(x.float(), w.float(), b.float()), approximate="tanh")
    kern(x, w, b, out=y)
    err = float((y.float() - ref).norm() / ref.norm())
    prepared = kern.prepare(M, N, K)
    packed = PackedArgs.of(prepared.pack({"A": x.data_ptr(), "B": w.data_ptr(), "D": y.data_ptr(), "bias": b.data_ptr()}), prepared)
    stream = torch.cuda.current_stream().cuda_stream
    bound = kern.bind(x, w, b, out=y)
    kiln_paths = {
        "kiln_call_out": lambda: kern(x, w, b, out=y),
        "kiln_call_alloc": lambda: kern(x, w, b),
        "kiln_bound": bound,
        "kiln_bare_launch": lambda: kern.kernel.launch_args(prepared, packed, stream),
    }
    # Each Kiln path twice: through cuda-python's cuLaunchKernelEx wrapper (the default) and the
    # opt-in ctypes driver call (KILN_LAUNCH=driver); the flag is set before each round.
    paths: dict[str, tuple[bool, Any]] = {name: (False, fn) for name, fn in kiln_paths.items()}
    paths |= {f"{name}_driver": (True, fn) for name, fn in kiln_paths.items()}
    paths |= {"torch_linear": (True, lambda: F.linear(x, w, b)),
              "torch_linear_gelu": (True, lambda: F.gelu(F.linear(x, w, b), approximate="tanh")),
              # where a checked call's time goes: the operand checks and lookups alone, no launch
              "kiln_checks_only": (False, lambda: kern._checked(x, w, b, None, y))}
    errors = {}
    for driver, fn in paths.values():  # check both launch paths, and warm every path
        driver_launch.ENABLED = driver
        y.fill_(float("nan"))
        kern(x, w, b, out=y)
        torch.cuda.synchronize()
        errors["driver" if driver else "cuda_python"] = float((y.float() - ref).norm() / ref.norm())
        y.fill_(float("nan"))
        bound()
        torch.cuda.synchronize()
        errors["bound_driver" if driver else "bound_cuda_python"] = float((y.float() - ref).norm() / ref.norm())
        for _ in range(100):
            fn()
    results = per_call_us(paths, args.calls, args.rounds)
    driver_launch.ENABLED = False
    gpu_us = {name: round(gpu_us_per_kernel(paths[name][1], args.calls), 2) for name in ("kiln_bare_launch", "torch_linear")}
    gpu = torch.cuda.get_device_name(0)
    dev = visible_gpus()[0]
    payload = {**provenance({"name": gpu, "driver": dev.driver, "cuda": dev.cuda_version, "torch": torch.__version__}),
               "benchmark": "launch_overhead",
               "rel_error": err, "rel_error_by_launch_path": errors, "host_us_per_call": results,
               "gpu_us_per_kernel": gpu_us, "shape": [M, N, K], "calls_per_round": args.calls,
               "rounds": args.rounds}
    print(json.dumps(payload["host_us_per_call"], indent=1), f"rel error {err:.1e}")
    save_result(payload, "overhead", gpu, args.out)


if __name__ == "__main__":
    main()
