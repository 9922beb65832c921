"""Compile-time and search-space figures, on the CPU (no GPU).

    python -m bench.compile_bench [--suite ../shared/bench/suite.json]

1. Space size before and after pruning, per rule, for every GEMM of the suite (sm_90a).
2. NVRTC seconds per variant on ONE core: 2.x variants without and with precompiled headers,
   3.x variants (TMA/EVT and no-smem epilogues), then the same requests again from the cache.
Writes bench/results/compile_<host>_<date>.json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import provenance, write_result
from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.compiler import Compiler
from worker.kernels.config import (
    ConvIterator,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Schedule,
    TileScheduler,
)
from worker.kernels.hardware import hardware_for
from worker.kernels.problem import GemmProblem
from worker.kernels.prune import prune
from worker.kernels.space import full_space

SM80 = [KernelConfig(Family.sm80_tensorop, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, tile,
                     warp=(64, 64, tile[2]), stages=stages, swizzle=8)
        for tile, stages in (((128, 128, 32), 3), ((128, 128, 32), 4), ((128, 256, 32), 3), ((256, 128, 32), 3))]
SM90 = [KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (128, 256, 64),
                     cluster=(2, 1), schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                     tile_scheduler=TileScheduler.persistent),
        KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias, (128, 128, 64),
                     schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem,
                     tile_scheduler=TileScheduler.persistent),
        # the suite's most frequent winner shape (session 2): ping-pong, TMA/EVT epilogue, 2-CTA cluster
        KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (128, 128, 128),
                     cluster=(1, 2), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                     tile_scheduler=TileScheduler.persistent)]
CONV = [KernelConfig(Family.sm80_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 64, 32),
                     warp=(64, 32, 32), stages=3, swizzle=1, conv_iterator=ConvIterator.optimized),
        KernelConfig(Family.sm90_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 128, 64))]


def timed(compiler: Compiler, configs: list[KernelConfig], arch: str) -> list[dict]:
    t0 = time.monotonic()
    outs = compiler.compile_all(configs, target_arch=arch)
    wall = time.monotonic() - t0
    return [{"name": o.config.name, "ok": o.ok, "cached": o.cached, "nvrtc_seconds": round(o.seconds, 2),
             "error": o.error, "bytes": len(o.cubin or b"")} for o in outs] + [{"wall_seconds": round(wall, 3)}]


def _cached_wall(configs: list[KernelConfig]) -> float:
    """Seconds per variant for a request whose cubins are all cached (render + key + read + verify)."""
    with tempfile.TemporaryDirectory() as tmp:
        c = Compiler(Path(tmp), jobs=1)
        c.compile_all(configs[:1], target_arch="sm_90")
        t0 = time.monotonic()
        for _ in range(20):
            c.compile_all(configs[:1], target_arch="sm_90")
        return (time.monotonic() - t0) / 20


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", type=Path, default=Path("../shared/bench/suite.json"))
    p.add_argument("--name", default=f"compile_cpu_{dt.date.today():%Y%m%d}.json", help="file under bench/results/")
    args = p.parse_args()
    spaces = []
    for g in json.loads(args.suite.read_text())["gemm"]:
        prob = GemmProblem.from_spec(GemmSpec(m=g["m"], n=g["n"], k=g["k"], dtype=g.get("dtype", "f16"),
                                              epilogue=g.get("epilogue", "none")))
        r = prune(full_space(prob, "sm_90a"), prob, hardware_for("sm_90a"), limit=12)
        spaces.append({"name": g["name"], **r.as_dict()})
        print(f"{g['name']:<22} {r.total:>6} → {r.survivors:>4} → {len(r.kept)}")
    with tempfile.TemporaryDirectory() as tmp:
        no_pch = Compiler(Path(tmp) / "a", jobs=1, use_pch=False)
        with_pch = Compiler(Path(tmp) / "b", jobs=1, use_pch=True)
        runs = {
            "sm80_no_pch": timed(no_pch, SM80, "sm_90"),
            "sm80_pch": timed(with_pch, SM80, "sm_90"),
            "sm90": timed(with_pch, SM90, "sm_90a"),
            "conv": timed(with_pch, CONV, "sm_90a"),
        }
        runs["cached_second_request"] = timed(with_pch, SM80, "sm_90")[:-1] + timed(with_pch, SM90, "sm_90a")
    summary: dict[str, Any] = {}
    for key in ("sm80_no_pch", "sm80_pch", "sm90", "conv"):
        secs = [r["nvrtc_seconds"] for r in runs[key] if "nvrtc_seconds" in r]
        summary[key] = {"median_s": statistics.median(secs), "all_s": secs}
    cached = [r for r in runs["cached_second_request"] if "cached" in r]
    assert all(r["cached"] for r in cached), "second request should be served from the cache"
    summary["cached_ms_per_variant"] = round(1000 * _cached_wall(SM80), 2)
    payload = {**provenance(), "benchmark": "compile", "one_core": True, "spaces": spaces, "runs": runs, "summary": summary}
    path = write_result(args.name, payload)
    print(json.dumps(summary, indent=1))
    print("wrote", path)


if __name__ == "__main__":
    main()
