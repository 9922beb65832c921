"""The GPU half of a tuning run, in its own process: verify every candidate, time the good ones
against the library in the same run, re-time the leaders interleaved.

Run by worker/gpu_step.py as `python -m worker.gpu_bench --serve`: one process per worker that
measures plan after plan (a plan's path per line on stdin), so torch, the CUDA context and cuBLAS
are set up once per worker, not once per job (that start-up was about a third of a warm job).
`python -m worker.gpu_bench PLAN.json` measures one plan and exits. One JSON object per line on
stdout: progress events and, last, the results. A kernel that corrupts the CUDA context kills only
this process; the parent records which candidate was in flight and starts a fresh one for the rest.
"""

from __future__ import annotations

import gc
import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from worker.kernels import render
from worker.kernels.config import KernelConfig
from worker.kernels.problem import round_up
from worker.phase_clock import PhaseClock
from worker.runtime.launcher import LoadedKernel, PackedArgs, PreparedLaunch, load_module, unload_module
from worker.runtime.torch_prepare import Workspaces

L2_BYTES = 60 * 1024 * 1024
TOLERANCE = {"f16": 2e-3, "bf16": 1.6e-2}
TORCH_DTYPE = {"f16": torch.float16, "bf16": torch.bfloat16}


def emit(**event: Any) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def activation(name: str, x: torch.Tensor) -> torch.Tensor:
    if name == "identity":
        return x
    if name == "relu":
        return torch.relu(x)
    if name == "gelu":
        return F.gelu(x, approximate="tanh")
    if name == "silu":
        return F.silu(x)
    if name == "hardswish":
        return F.hardswish(x)
    if name == "sigmoid":
        return torch.sigmoid(x)
    raise ValueError(name)


@dataclass
class Operands:
    A: torch.Tensor  # [M,K] row or stored [K,M] for col
    B: torch.Tensor  # "col" B: stored as W[N,K]; "row" B: stored [K,N]
    C: torch.Tensor | None
    D: torch.Tensor
    bias: torch.Tensor | None
    n: int = 0  # the problem's N when N was padded (D's first n columns are the result)

    def out(self) -> torch.Tensor:
        return self.D[:, : self.n] if self.n else self.D

    def pointers(self) -> dict[str, int]:
        return {"A": self.A.data_ptr(), "B": self.B.data_ptr(), "C": self.C.data_ptr() if self.C is not None else 0,
                "D": self.D.data_ptr(), "bias": self.bias.data_ptr() if self.bias is not None else 0}

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (self.A, self.B, self.C, self.D, self.bias) if t is not None)


class Problem:
    def __init__(self, spec: dict[str, Any], epilogue: dict[str, Any], device: str = "cuda") -> None:
        self.device = device  # "cpu" lets tests check operand construction without a GPU
        self.spec = spec
        self.m, self.n, self.k = spec["m"], spec["n"], spec["k"]
        self.dtype = TORCH_DTYPE[spec["dtype"]]
        self.alpha, self.beta = float(spec.get("alpha", 1.0)), float(spec.get("beta", 0.0))
        self.epi = epilogue

    def make(self, shape: tuple[int, ...], kind: str, pad: int = 0, s2d: int = 0) -> Operands:
        """Operands for one run; with `pad`, K and N are zero-padded to a multiple of it, as the
        launch contract of a padded kernel asks the client to do (row-major A, W[N, K] only).
        (`s2d` is a conv operand transform: GEMM kernels never ask for it.)"""
        assert not s2d, "space-to-depth is a conv transform"
        m, n, k = shape
        dev, dt = self.device, self.dtype

        def gen(*shape: int) -> torch.Tensor:
            if kind == "int":
                return torch.randint(-1, 2, shape, device=dev).to(dt)
            return (torch.randn(*shape, device=dev) * 0.5).to(dt)

        if pad:
            kp, np_ = round_up(k, pad), round_up(n, pad)

            def padded(rows: int, cols: int, real_rows: int, real_cols: int) -> torch.Tensor:
                t = torch.zeros(rows, cols, device=dev, dtype=dt)
                t[:real_rows, :real_cols] = gen(real_rows, real_cols)
                return t

            C = padded(m, np_, m, n) if self.epi["residual"] else None
            bias = padded(1, np_, 1, n)[0] if self.epi["bias"] else None
            D = torch.empty(m, np_, device=dev, dtype=dt)
            return Operands(padded(m, kp, m, k), padded(np_, kp, n, k), C, D, bias, n=n)
        A = gen(m, k) if self.spec["layout_a"] == "row" else gen(k, m)
        B = gen(n, k) if self.spec["layout_b"] == "col" else gen(k, n)
        C = gen(m, n) if self.epi["residual"] else None
        bias = gen(n) if self.epi["bias"] else None
        D = torch.empty(m, n, device=dev, dtype=dt)
        return Operands(A, B, C, D, bias)

    def launch_shape(self, o: Operands, config: dict[str, Any] | None = None) -> dict[str, int]:
        """The builder's shape arguments for these operands (they may be a tail-test shape)."""
        m, n = o.D.shape
        return {"m": m, "n": n, "k": self.a_mk(o).shape[1]}

    def verify_shapes(self, m_cut: int, k_cut: int) -> list[tuple[tuple[int, int, int], str]]:
        """Full shape with exact small-integer and random inputs, then M and K tails (gpu_bench.tail_cuts:
        what the kernel can take)."""
        shapes = [((self.m, self.n, self.k), "int"), ((self.m, self.n, self.k), "rand")]
        if self.k > k_cut + 64 and self.m > m_cut:
            shapes.append(((self.m - m_cut, self.n, self.k - k_cut), "rand"))
        return shapes

    @property
    def full_shape(self) -> tuple[int, ...]:
        return (self.m, self.n, self.k)

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k

    def a_mk(self, o: Operands) -> torch.Tensor:
        return o.A if self.spec["layout_a"] == "row" else o.A.t()

    def b_nk(self, o: Operands) -> torch.Tensor:
        return o.B if self.spec["layout_b"] == "col" else o.B.t()

    def reference(self, o: Operands) -> torch.Tensor:
        """fp32 on the device; padded rows/columns of the operands are zeros and drop out, and only
        the problem's own N columns are compared."""
        acc = self.a_mk(o).float() @ self.b_nk(o).float().t()
        x = self.alpha * acc
        if o.bias is not None:
            x = x + o.bias.float()
        if self.epi["residual"] and o.C is not None:
            x = x + self.beta * o.C.float()
        y = activation(self.epi["activation"], x)
        return y[:, : o.n] if o.n else y

    def library(self, o: Operands) -> dict[str, Any]:
        """Library paths for this problem: cuBLAS GEMM + torch elementwise ops, and cuBLASLt's fused
        epilogues where torch exposes them. Each returns D."""
        a, w = self.a_mk(o), self.b_nk(o)
        act = self.epi["activation"]
        paths: dict[str, Any] = {}

        def unfused() -> torch.Tensor:
            y = F.linear(a, w, o.bias)
            if self.alpha != 1.0:
                y = y * self.alpha
            if self.epi["residual"] and o.C is not None:
                y = y + self.beta * o.C
            return activation(act, y)

        paths["cublas+torch"] = unfused
        if o.bias is not None and not self.epi["residual"] and self.alpha == 1.0:
            if act == "identity":
                paths["cublaslt_bias"] = lambda: torch.addmm(o.bias, a, w.t())
            elif act in ("relu", "gelu"):
                paths["cublaslt_" + act] = lambda: torch._addmm_activation(o.bias, a, w.t(), use_gelu=act == "gelu")
        return paths


def rel_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    if not torch.isfinite(out).all():
        return math.inf
    return float((out.float() - ref).norm() / ref.norm().clamp_min(1e-30))


class PlanModules:
    """One loaded module per cubin for a plan: a cubin's launch-time variants (raster, swizzle, split
    count, L2 promotion) and leader twins share it. A load took ~50 ms on the H200 (session 20 run A:
    2.1-3.4 s per shape for ~50 candidates of 16 cubins), so each cubin is loaded once."""

    def __init__(self) -> None:
        self._modules: dict[str, Any] = {}

    def get(self, cubin_path: str) -> Any:
        if cubin_path not in self._modules:
            self._modules[cubin_path] = load_module(Path(cubin_path).read_bytes())
        return self._modules[cubin_path]

    def unload_all(self) -> None:
        for module in self._modules.values():
            unload_module(module)
        self._modules.clear()


class Candidate:
    def __init__(self, entry: dict[str, Any], problem: Any, sm_count: int, stream: int, scratch: int,
                 modules: PlanModules | None = None) -> None:
        self.entry = entry
        self.problem = problem
        self.kernel = (LoadedKernel(None, entry["launch"], module=modules.get(entry["cubin_path"])) if modules else
                       LoadedKernel(Path(entry["cubin_path"]).read_bytes(), entry["launch"]))
        self.sm_count, self.stream, self.scratch = sm_count, stream, scratch
        self._prepared: dict[str, PreparedLaunch] = {}
        # what its launch contract asks the client to do to the operands: (padding, space-to-depth)
        self.prep = KernelConfig.from_dict(entry["config"]).operand_prep
        self.workspaces = Workspaces()
        self.sets: list[Any] = []

    def prepared(self, shape: dict[str, Any]) -> PreparedLaunch:
        key = json.dumps(shape, sort_keys=True)
        if key not in self._prepared:
            p = self.kernel.prepare(**shape, alpha=self.problem.alpha, beta=self.problem.beta,
                                    sm_count=self.sm_count, stream=self.stream, scratch=self.scratch,
                                    runtime=self.entry.get("runtime"))
            self._prepared[key] = p
            self.workspaces.allocate(p, "cuda")
        return self._prepared[key]

    @property
    def workspace(self) -> torch.Tensor | None:
        """The workspace the shapes the launcher clears before each launch share."""
        return self.workspaces.shared

    def workspace_of(self, shape: dict[str, Any]) -> torch.Tensor | None:
        """The workspace a shape's launches get (its own for a self-clearing kernel)."""
        return self.workspaces.of(self.prepared(shape))

    def packed(self, o: Operands) -> tuple[PreparedLaunch, bytes, int]:
        p = self.prepared(self.problem.launch_shape(o, self.entry["config"]))
        ws = self.workspaces.address(p)
        return p, p.pack({**o.pointers(), "workspace": ws}), ws

    def run(self, o: Operands) -> None:
        p, packed, ws = self.packed(o)
        self.kernel.launch_packed(p, packed, self.stream, ws)


_VERIFY_INPUTS: dict[tuple, tuple[Any, Any, torch.Tensor]] = {}


def _verify_inputs(prob: Any, shape: tuple[int, ...], kind: str, prep: tuple[int, int]) -> tuple[Any, torch.Tensor]:
    """Inputs and their fp32 reference, made once per shape/kind/operand preparation and reused by
    every candidate (the reference of a large GEMM costs more than timing a kernel)."""
    key = (id(prob), shape, kind, prep)  # the entry holds prob, so its id cannot be reused meanwhile
    if key not in _VERIFY_INPUTS:
        o = prob.make(shape, kind, *prep)
        _VERIFY_INPUTS[key] = (prob, o, prob.reference(o))
    _, o, ref = _VERIFY_INPUTS[key]
    return o, ref


def tail_cuts(config: dict[str, Any]) -> tuple[int, int]:
    """How far the tail test cuts M and K: 13 rows, and three of A's and B's alignment units of K
    (so the last k-tile is partial); an odd-width tile's view of B holds whole 8-row groups and
    64-wide K atoms only (its params builder refuses any other problem; prune.odd_width_b_divides
    keeps such problems from it), so there K loses three atoms and, where B is the swapped
    activation, M two groups. Session 39's H100 run found every odd-width candidate failing its
    launch on decode.m64's tail shape (K = 4096 - 24) before this."""
    cfg = KernelConfig.from_dict(config)
    if render.odd_group_width(cfg):
        return (2 * render.ODD_WIDTH_GROUP_ROWS if cfg.swap_ab else 13), 3 * render.ODD_WIDTH_K_ATOM
    return 13, 3 * max(cfg.alignment[0], cfg.alignment[1], 8)


def verify(c: Candidate, prob: Any) -> tuple[bool, str, float]:
    """Exact small-integer check (linear epilogues), M/K tails, random inputs within tolerance.
    The output is poisoned with NaN before every run, so a kernel that skips a tile fails."""
    tol = TOLERANCE[prob.spec["dtype"]]
    worst = 0.0
    for shape, kind in prob.verify_shapes(*tail_cuts(c.entry["config"])):
        o, ref = _verify_inputs(prob, shape, kind, c.prep)
        o.D.fill_(float("nan"))
        c.run(o)
        torch.cuda.synchronize()
        err = rel_error(o.out(), ref)
        exact = kind == "int" and prob.epi["activation"] in ("identity", "relu") and prob.alpha == 1.0
        if exact:
            want = ref.to(prob.dtype)
            if not torch.equal(o.out(), want):
                bad = int((want != o.out()).sum())
                return False, f"{bad} elements differ on exact small-integer inputs ({_dims(shape)})", err
        elif not err <= tol:
            return False, f"relative error {err:.2e} > {tol:.0e} on {kind} inputs ({_dims(shape)})", err
        worst = max(worst, err)
    return True, "", worst


def _dims(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def rotating_sets(prob: Any, prep: tuple[int, int] = (0, 0)) -> list[Any]:
    """Enough independent operand sets that cycling through them overflows twice the L2."""
    first = prob.make(prob.full_shape, "rand", *prep)
    count = max(2, min(32, math.ceil(2 * L2_BYTES / max(1, first.nbytes()))))
    return [first] + [prob.make(prob.full_shape, "rand", *prep) for _ in range(count - 1)]


def time_launches(fns: list[Any], reps: int) -> list[float]:
    """CUDA events around each launch. A sleep kernel first lets the host queue ahead, so launch
    overhead stays outside the events; fns[i % len] rotates the operand sets."""
    for f in fns[: min(len(fns), 5)]:
        f()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    torch.cuda._sleep(20_000_000)
    for i in range(reps):
        starts[i].record()
        fns[i % len(fns)]()
        ends[i].record()
    torch.cuda.synchronize()
    return [1000.0 * s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)]  # microseconds


SETTLE_SECONDS = 0.5
SETTLE_MAX_SECONDS = 5.0
SETTLE_AGREEMENT = 0.01
SETTLE_WINDOW_SECONDS = 0.5


FIRST_PASS_BUDGET_US = 30_000.0  # GPU time per candidate in the first pass
FIRST_PASS_MIN_REPS = 20


def first_pass_reps(reps: int, library_us: float) -> int:
    """Launches per candidate in the first pass: `reps`, or fewer where that many would take over
    FIRST_PASS_BUDGET_US of GPU time (the library's time standing in for the candidates'), never
    under FIRST_PASS_MIN_REPS. The first pass only picks the leaders; the interleaved re-time
    decides between them. square.8192 (1.5 ms a launch) spent 6.7 of its 11.4 warm seconds there at
    60 launches a candidate (session 20 run B); shapes under 500 µs keep all 60."""
    return max(min(reps, FIRST_PASS_MIN_REPS), min(reps, math.ceil(FIRST_PASS_BUDGET_US / max(library_us, 1e-3))))


SETTLE_ROUND_US = 2000.0  # GPU time per settling round
WARM_GPU_SECONDS = 2.0  # a plan that starts this soon after the last one ended skips the warm-up
_last_busy = -math.inf  # when this process last had the GPU busy (the end of its last plan)


def settle(fns: list[Any], seconds: float = SETTLE_SECONDS, max_seconds: float = SETTLE_MAX_SECONDS) -> None:
    """Keep the GPU busy before anything is timed, until its timing is steady: straight after a
    machine start (or a long idle) its clocks are still moving. `seconds` of launches (skipped when
    the last plan ended under WARM_GPU_SECONDS ago), then timed rounds until the rounds of the last
    SETTLE_WINDOW_SECONDS stop drifting (`steady`: the window's halves' medians within SETTLE_AGREEMENT), or
    `max_seconds` have passed. Each round is one pair of events around SETTLE_ROUND_US of launches
    (time_batch): rounds of 30 separately timed launches, as before session 20, could not agree
    within 1% on kernels of 13-34 µs (event resolution, single-launch jitter), so the small shapes
    settled for the full 5 s on a warm GPU (session 20 run A). What settling cannot remove is the
    power cap's wander under sustained heavy load (time_interleaved says why)."""
    start = time.monotonic()
    if start - _last_busy > WARM_GPU_SECONDS:
        while time.monotonic() < start + seconds:
            for f in fns:
                f()
            torch.cuda.synchronize()
    count = max(10, math.ceil(SETTLE_ROUND_US / max(1e-3, time_batch(fns, 10))))
    rounds: list[tuple[float, float]] = []  # (when it ended, its µs per launch)
    while time.monotonic() < start + max_seconds:
        rounds.append((time.monotonic(), time_batch(fns, count)))
        if steady(rounds, rounds[-1][0]):
            return


def time_batch(fns: list[Any], count: int) -> float:
    """Mean µs per launch over `count` back-to-back launches between one pair of CUDA events (the
    sleep kernel first, as in time_launches, so the GPU never waits on the host)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(20_000_000)
    start.record()
    for i in range(count):
        fns[i % len(fns)]()
    end.record()
    torch.cuda.synchronize()
    return 1000.0 * start.elapsed_time(end) / count


INTERLEAVED_ROUNDS = 10


def time_interleaved(groups: dict[str, list[Any]], reps: int,
                     rounds: int = INTERLEAVED_ROUNDS) -> dict[str, dict[str, float]]:
    """Each group timed in `rounds` turns of `reps` launches, the groups taking turns, summarized
    over all its launches. Comparisons are made this way because the clock moves under them: a 4096^3
    GEMM launched back to back holds an H200 at its 700 W cap (nvidia-smi: throttle reason SW power
    cap, 650-690 W, SM clock wandering 1500-1980 MHz), and its 100-launch medians then wander
    327-372 µs, with slow dips that come and go every second or so; consecutive ones differ by up
    to 10% (bench/results/timing_drift_h200_20261130_session9_b.json). Taking turns gives every
    group the same clocks, and many short turns spread each group over the dips: replayed on that
    record, two groups of 3 turns disagreed by more than 3% in 23% of the windows, of 10 turns in
    none (worst 3.0%)."""
    times: dict[str, list[float]] = {name: [] for name in groups}
    for _round in range(rounds):
        for name, fns in groups.items():
            times[name] += time_launches(fns, reps)
    return {name: summarize(ts) for name, ts in times.items()}


def steady(rounds: list[tuple[float, float]], now: float, window: float = SETTLE_WINDOW_SECONDS,
           agreement: float = SETTLE_AGREEMENT) -> bool:
    """Whether the timing has stopped drifting: the window is full (some round is at least `window`
    old), it holds at least six rounds, and the median of its older half agrees with the median of
    its newer half within `agreement`. Medians, not the window's extremes: a 13-15 µs kernel's 2 ms
    rounds scatter past 1% without drifting, and an extremes test kept bert-base.attn_out and
    decode.m16 settling the full 5 s in session 20's run D."""
    if not rounds or now - rounds[0][0] < window:
        return False
    recent = [median for when, median in rounds if now - when <= window]
    if len(recent) < 6:
        return False
    older, newer = statistics.median(recent[: len(recent) // 2]), statistics.median(recent[len(recent) // 2:])
    return abs(newer - older) <= agreement * min(older, newer)


def summarize(times: list[float]) -> dict[str, float]:
    q = statistics.quantiles(times, n=4)
    return {"median_us": statistics.median(times), "spread_us": q[2] - q[0], "min_us": min(times)}


def _setup() -> None:
    torch.cuda.init()
    torch.backends.cuda.matmul.allow_tf32 = False


def serve() -> None:
    """Plan after plan until stdin closes (the worker exited). Between plans every module is
    unloaded and every buffer freed, so a long-lived process measures like a fresh one."""
    _setup()
    emit(event="ready")
    cleanup = 0.0
    for line in sys.stdin:
        if line.strip():
            phases = PhaseClock()
            phases.seconds["previous_cleanup"] = cleanup  # before this plan was read: it may have waited on it
            modules = PlanModules()
            try:
                measure(json.loads(Path(line.strip()).read_text()), modules, phases)
            finally:
                started = time.perf_counter()
                modules.unload_all()
                _VERIFY_INPUTS.clear()
                gc.collect()
                torch.cuda.empty_cache()
                cleanup = time.perf_counter() - started


def main(plan_path: str) -> None:
    _setup()
    measure(json.loads(Path(plan_path).read_text()), PlanModules())


def measure(plan: dict[str, Any], modules: PlanModules, phases: PhaseClock | None = None) -> None:
    """Verify and time one plan's candidates; `modules` holds what to unload afterwards. `phases`
    (started before the plan was read) collects where the seconds went."""
    global _last_busy
    phases = phases or PhaseClock()
    phases.lap("read_plan")
    props = torch.cuda.get_device_properties(0)
    stream = torch.cuda.current_stream().cuda_stream
    scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
    if plan["spec"].get("op") == "conv2d":
        from worker.gpu_bench_conv import ConvBench

        torch.backends.cudnn.benchmark = True
        prob: Any = ConvBench(plan["spec"], plan["epilogue"])
    else:
        prob = Problem(plan["spec"], plan["epilogue"])
    flops = prob.flops
    reps = int(plan.get("reps", 60))
    sets = rotating_sets(prob)
    sets_by_pad = {(0, 0): sets}
    phases.lap("operands")
    skip = set(plan.get("skip", []))
    results: dict[str, Any] = {"candidates": {}, "gpu": props.name, "sm_count": props.multi_processor_count,
                               "phase_seconds": phases.seconds}

    # Library baseline, in the same process and the same way, once the clocks have settled. Settled on
    # the last library path, the fused one where there is one: one kernel. The unfused bias + GELU
    # path's batches (GEMM, then torch's elementwise kernels) never agreed within 1% on bert-base.ffn1
    # and settled the full 5 s (session 20 run B); every single-kernel path settled in 0.5-1.1 s.
    settle([list(prob.library(o).values())[-1] for o in sets])
    phases.lap("settle")
    lib = {}
    for name in prob.library(sets[0]):
        fns = [prob.library(o)[name] for o in sets]
        lib[name] = summarize(time_launches(fns, reps))
    results["library"] = lib
    for name in getattr(prob, "reference_paths", lambda _o: {})(sets[0]):
        # Not the same output (e.g. the conv without its epilogue): reported, never the baseline.
        results.setdefault("library_reference", {})[name] = summarize(
            time_launches([prob.reference_paths(o)[name] for o in sets], reps))
    emit(event="baseline", library=lib)
    phases.lap("library")
    candidate_reps = first_pass_reps(reps, min(t["median_us"] for t in lib.values()))

    live: list[tuple[str, Candidate]] = []

    def verify_and_time(entry: dict[str, Any]) -> None:
        name = entry["name"]
        if name in skip:
            return
        emit(event="start", name=name)
        try:
            c = Candidate(entry, prob, props.multi_processor_count, stream, scratch.data_ptr(), modules)
            phases.lap("load")
            ok, reason, err = verify(c, prob)
            phases.lap("verify")
        except Exception as exc:
            # A faulting kernel leaves the CUDA context unusable: report the culprit and exit, so the
            # parent records it and carries on in a fresh process with the others.
            emit(event="crashed", name=name, reason=f"{type(exc).__name__}: {exc}"[:2000])
            os._exit(3)
        emit(event="verified", name=name, ok=ok, reason=reason, error=err)
        if not ok:
            results["candidates"][name] = {"status": "verify_failed", "reason": reason, "rel_error": err}
            return
        if c.prep not in sets_by_pad:
            sets_by_pad[c.prep] = rotating_sets(prob, c.prep)
            phases.lap("operands")
        c.sets = sets_by_pad[c.prep]
        fns = [_bind(c, o) for o in c.sets]
        t = summarize(time_launches(fns, candidate_reps))
        phases.lap("time")
        results["candidates"][name] = {"status": "timed", "rel_error": err, **t, "tflops": flops / t["median_us"] / 1e6}
        emit(event="timed", name=name, **t)
        live.append((name, c))

    for entry in plan["candidates"]:
        verify_and_time(entry)
    # The first pass's leaders' launch-time twins (worker/selection.py leader_twins: knobs worth a
    # few percent that would double every candidate's timing), verified and timed like the rest.
    by_name = {e["name"]: e for e in plan["candidates"]}
    for name, _ in sorted(live, key=lambda nc: results["candidates"][nc[0]]["median_us"])[: int(plan.get("refine", 2))]:
        for twin in by_name[name].get("leader_twins", []):
            verify_and_time(twin)

    # Re-time the leaders and the best library path interleaved, so a win inside the noise is not one.
    best_lib = min(lib, key=lambda n: lib[n]["median_us"])
    leaders = sorted(live, key=lambda nc: results["candidates"][nc[0]]["median_us"])[: int(plan.get("retime", 3))]
    groups = {n: [_bind(c, o) for o in c.sets] for n, c in leaders}
    groups["library:" + best_lib] = [prob.library(o)[best_lib] for o in sets]
    results["retimed"] = time_interleaved(groups, max(10, 3 * reps // INTERLEAVED_ROUNDS))  # ~3 x reps each
    phases.lap("retime")
    _last_busy = time.monotonic()
    results["best_library"] = best_lib
    emit(event="done", results=results)


def _bind(c: Candidate, o: Operands) -> Any:
    p, packed, ws = c.packed(o)
    args = PackedArgs.of(packed, p)
    return lambda: c.kernel.launch_args(p, args, c.stream, ws)


if __name__ == "__main__":
    serve() if sys.argv[1] == "--serve" else main(sys.argv[1])
