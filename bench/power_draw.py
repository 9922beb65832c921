"""`python -m bench.power_draw`: a winner's and the library's clock, power and energy under sustained load.

    kiln bench power --result bench/results/gemm_h100_….json --only llama7b.o_proj llama7b.down \\
        [--extra twins.json] [--seconds 3] [--turns 3] [--out result.json]

Under sustained load a compute-bound GEMM holds an H100/H200 at its 700 W power cap, and the clock
the power manager grants then depends on what the kernel burns per cycle (README, Timing: 1500-1980
MHz on one 4096³ GEMM). A kernel's time there is cycles × clock, so two kernels can differ by their
energy per cycle as much as by their cycles. Session 33 had Kiln's compute-bound winners (o_proj,
down, qkv: 0.98-0.99× cuBLAS) reading 21-23% more L2 sectors than nvjet for the same bytes into the
SMs: if those sectors cost power, Kiln's kernel runs slower at the same cycle count, and the lever is
energy (fewer L2 bytes, fewer shared-memory round trips), not scheduling.

Each kernel (every stored winner of a shape, from `--result` and `--extra` files, and cuBLAS's
F.linear on the same operands) is verified against a float32 reference first, then launched back to
back for `--seconds` with its operand sets rotated beyond twice the L2; the first quarter of each
window is discarded (the power manager's ramp), and windows take turns across kernels so drifts in
temperature land on all of them. Per window: µs per launch from CUDA events, the SM clock and the
clock-limit reasons from an NVML sampling thread, joules per launch from NVML's energy counter, and
cycles per launch (µs × mean MHz): equal cycles at a lower clock is a power-bound gap.

`--data zeros` times the same kernels on zeroed operands once each has been verified on random ones:
the tensor cores' power follows their operands' bit toggles, so zeros lift the cap's grip and the
time ratio falls back to the cycle ratio; the gap between the two modes is what the cap costs.
A kernel that fails verification is recorded with its error and left out of the windows.

Back-to-back launches let Kiln's sm90 kernels, launched with programmatic dependent launch, start
their prologue under the previous launch's tail, which torch's cuBLAS calls do not: on the H200 that
overlap was worth 1.3% of o_proj's time (session 36: 0.994 of cuBLAS's with it, 1.007 without, on
zeroed operands), and it lands in the cycles per launch. Run with KILN_PDL=0 for the kernel alone, as
the suite times it (each launch between its own events, where nothing overlaps).
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import device_provenance, save_result
from bench.nvml import Nvml, cuda_bus_id, reason_names

SAMPLE_SECONDS = 0.004
RAMP_FRACTION = 0.25
BATCH = 16  # launches between host clock checks and queue waits


@dataclass
class Sample:
    t: float
    mhz: int
    mw: int
    reasons: int


@dataclass
class Sampler:
    """Polls the GPU's counters on a thread while the main thread launches kernels."""

    nvml: Any
    period: float = SAMPLE_SECONDS
    samples: list[Sample] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Sampler:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append(Sample(time.perf_counter(), self.nvml.sm_clock_mhz(), self.nvml.power_mw(),
                                       self.nvml.clock_limit_reasons()))
            time.sleep(self.period)

    def between(self, t0: float, t1: float) -> list[Sample]:
        return [s for s in list(self.samples) if t0 <= s.t <= t1]


def window_stats(samples: list[Sample], launches: int, gpu_ms: float, host_s: float, energy_mj: int
                 ) -> dict[str, Any]:
    """One kernel's window: time, clock, power and energy per launch, and what limited the clock."""
    us = gpu_ms * 1000 / launches
    mhz = statistics.fmean(s.mhz for s in samples) if samples else None
    limited: dict[str, float] = {}
    for s in samples:
        for name in reason_names(s.reasons):
            limited[name] = limited.get(name, 0) + 1 / len(samples)
    return {
        "launches": launches, "us_per_launch": us, "gpu_busy": gpu_ms / 1000 / host_s,
        "sm_mhz_mean": mhz, "sm_mhz_min": min((s.mhz for s in samples), default=None),
        "sm_mhz_max": max((s.mhz for s in samples), default=None),
        "kcycles_per_launch": us * mhz / 1000 if mhz else None,
        "watts_sampled": statistics.fmean(s.mw for s in samples) / 1000 if samples else None,
        "watts_from_energy": energy_mj / 1000 / host_s, "mj_per_launch": energy_mj / launches,
        "clock_limited_by": {k: round(v, 3) for k, v in sorted(limited.items())}, "samples": len(samples),
    }


class LaunchLoop:
    """Back-to-back launches over rotating operand sets, with at most two batches queued: a launch
    that blocks on a full queue would hold the GIL (torch's do) and starve the sampling thread,
    while waiting on an event releases it."""

    def __init__(self, launch: Callable[[int], Any], sets: int) -> None:
        import torch

        self.launch, self.sets, self.i = launch, sets, 0
        self._done: list[Any] = []
        self._event = torch.cuda.Event

    def run_until(self, stop: float) -> int:
        launches = 0
        while time.perf_counter() < stop:
            for _ in range(BATCH):
                self.launch(self.i % self.sets)
                self.i += 1
            launches += BATCH
            self._done.append(self._event())
            self._done[-1].record()
            if len(self._done) > 2:
                self._done.pop(0).synchronize()
        return launches


def sustained_window(launch: Callable[[int], Any], sets: int, seconds: float, nvml: Any, sampler: Sampler
                     ) -> dict[str, Any]:
    """`launch(i)` back to back over operand set i % sets for `seconds`; the first RAMP_FRACTION is
    the power manager's ramp and stays out of every figure."""
    import torch

    loop = LaunchLoop(launch, sets)
    loop.run_until(time.perf_counter() + seconds * RAMP_FRACTION)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0, t0 = nvml.energy_mj(), time.perf_counter()
    start.record()
    launches = loop.run_until(t0 + seconds * (1 - RAMP_FRACTION))
    end.record()
    torch.cuda.synchronize()
    t1, e1 = time.perf_counter(), nvml.energy_mj()
    return window_stats(sampler.between(t0, t1), launches, start.elapsed_time(end), t1 - t0, e1 - e0)


def shape_rows(results: list[Path], only: list[str] | None) -> dict[str, list[dict[str, Any]]]:
    """Every stored winner of each named shape across the files, in file order (a twins file adds
    kernels to a shape under its own config)."""
    shapes: dict[str, list[dict[str, Any]]] = {}
    for path in results:
        for row in json.loads(path.read_text())["shapes"]:
            if only is None or row["name"] in only:
                shapes.setdefault(row["name"], [])
                if row["winner"] not in [r["winner"] for r in shapes[row["name"]]]:
                    shapes[row["name"]].append(row)
    return shapes


DATA = ("randn", "zeros")


def launchers(rows: list[dict[str, Any]], cubins: dict[str, bytes], data: str = "randn"
              ) -> tuple[dict[str, Callable[[int], Any]], int, dict[str, str]]:
    """Each kernel of one shape and cuBLAS, as launch(set index) over shared rotating operand sets,
    each Kiln kernel verified against a float32 reference first (on random operands whatever
    `data` asks; the sets are zeroed after). Returns the launchers, the set count and, by kernel,
    the errors of those that failed."""
    import torch
    import torch.nn.functional as F

    from service.specs import GemmSpec
    from worker.gpu_bench import rel_error
    from worker.kernels.config import KernelConfig
    from worker.runtime.launch_meta import launch_meta
    from worker.runtime.torch_gemm import TORCH_DTYPE, KilnGemm

    first = rows[0]
    spec = GemmSpec(m=first["m"], n=first["n"], k=first["k"], dtype=first.get("dtype", "f16"), epilogue=first["epilogue"])
    if spec.epilogue.value not in ("none", "bias"):
        raise SystemExit(f"{first['name']}: the power bench compares plain and bias GEMMs (F.linear), not {spec.epilogue.value}")
    dt = TORCH_DTYPE[spec.dtype.value]
    per_set = (spec.m * spec.k + spec.n * spec.k + spec.m * spec.n + spec.n) * 2
    sets = max(2, -(-2 * torch.cuda.get_device_properties(0).L2_cache_size // per_set) + 1)
    xs = [torch.randn(spec.m, spec.k, device="cuda", dtype=dt) for _ in range(sets)]
    ws = [torch.randn(spec.n, spec.k, device="cuda", dtype=dt) * 0.1 for _ in range(sets)]
    bs = [torch.randn(spec.n, device="cuda", dtype=dt) if spec.epilogue.value == "bias" else None for _ in range(sets)]
    ref = F.linear(xs[0].float(), ws[0].float(), None if bs[0] is None else bs[0].float())
    tolerance = 2e-3 if spec.dtype.value == "f16" else 1.6e-2
    out: dict[str, Callable[[int], Any]] = {"library": lambda i: F.linear(xs[i], ws[i], bs[i])}
    failed: dict[str, str] = {}
    for row in rows:
        cfg = KernelConfig.from_dict(row["winner"])
        try:
            kiln = KilnGemm(cubins[cfg.compiled.name], launch_meta(cfg), spec.model_dump(mode="json"))
            err = rel_error(kiln(xs[0], ws[0], bs[0]), ref)
        except Exception as exc:  # a twin the runtime cannot launch; the others still run
            failed[cfg.name] = f"{type(exc).__name__}: {exc}"[:500]
            continue
        if not err <= tolerance:
            failed[cfg.name] = f"relative error {err:.2e} over {tolerance:.1e}"
            continue
        out[cfg.name] = bound(kiln, xs, ws, bs)
    if data == "zeros":
        for t in xs + ws + bs:
            if t is not None:
                t.zero_()
    return out, sets, failed


def bound(kiln: Any, xs: list[Any], ws: list[Any], bs: list[Any]) -> Callable[[int], Any]:
    """One Kiln kernel as launch(set index): its own closure, not the loop variable's last value."""
    return lambda i: kiln(xs[i], ws[i], bs[i])


def summary(windows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per kernel, the median of its windows, and its time, clock, cycles and energy over the library's."""
    med: dict[str, dict[str, float]] = {}
    for kernel in dict.fromkeys(w["kernel"] for w in windows):
        mine = [w for w in windows if w["kernel"] == kernel]
        med[kernel] = {key: statistics.median(w[key] for w in mine)
                       for key in ("us_per_launch", "sm_mhz_mean", "kcycles_per_launch", "mj_per_launch",
                                   "watts_from_energy") if all(w[key] is not None for w in mine)}
    return over_library(med)


def over_library(med: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Adds to every kernel but the library each of its figures over the library's, as `<key>_over_library`."""
    lib = med["library"]
    for kernel, m in med.items():
        if kernel != "library":
            m.update({f"{key}_over_library": m[key] / lib[key] for key in list(m) if key in lib and lib[key]})
    return med


def add_winner_arguments(p: argparse.ArgumentParser) -> None:
    """--result/--extra/--only: which stored winners (and twins) a per-shape bench runs beside the library."""
    p.add_argument("--result", type=Path, action="append", required=True, help="a gemm suite result JSON")
    p.add_argument("--extra", type=Path, action="append", default=[], help="more {shapes: [...]} rows: twins to compare")
    p.add_argument("--only", nargs="*", default=None)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_winner_arguments(p)
    p.add_argument("--seconds", type=float, default=3.0, help="each window, its ramp included")
    p.add_argument("--turns", type=int, default=3)
    p.add_argument("--data", choices=DATA, default="randn", help="the operands timed (verification is always random)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    import torch

    from bench.kernel_profile import compile_winners
    from worker.device import visible_gpus

    shapes = shape_rows(args.result + args.extra, args.only)
    cubins = compile_winners([r for rows in shapes.values() for r in rows])
    nvml = Nvml(cuda_bus_id(torch.cuda.current_device()))
    out_rows: list[dict[str, Any]] = []
    with Sampler(nvml) as sampler:
        for name, rows in shapes.items():
            launch, sets, failed = launchers(rows, cubins, args.data)
            for kernel, why in failed.items():
                print(f"{name:20s} {kernel:70s} FAILED verification: {why}", flush=True)
            windows = []
            for turn in range(1, args.turns + 1):
                for kernel, fn in launch.items():
                    w = {"shape": name, "kernel": kernel, "turn": turn, "operand_sets": sets,
                         "temperature_c": nvml.temperature_c(), **sustained_window(fn, sets, args.seconds, nvml, sampler)}
                    windows.append(w)
                    print(f"{name:20s} {kernel:70s} #{turn} {w['us_per_launch']:9.2f} µs {w['sm_mhz_mean'] or 0:6.0f} MHz "
                          f"{w['watts_from_energy']:5.0f} W {w['mj_per_launch']:8.3f} mJ  {w['clock_limited_by']}", flush=True)
            out_rows.append({"shape": name, "windows": windows, "median": summary(windows), "failed": failed})
            print(json.dumps({"shape": name, "median": out_rows[-1]["median"]}), flush=True)
    dev = next(d for d in visible_gpus() if d.gpu_index == torch.cuda.current_device())
    payload = {**device_provenance(dev), "benchmark": "power_draw", "seconds": args.seconds, "turns": args.turns, "data": args.data,
               "shapes": out_rows}
    print(save_result(payload, "power_draw", dev.gpu_name, args.out))


if __name__ == "__main__":
    main()
