"""The real tuning step: enumerate → prune → compile (cached, parallel) → verify and time on the GPU.

The GPU work runs in a child process (worker/gpu_bench.py, kept across jobs by
worker/measure_process.py) so a kernel that wrecks the CUDA context cannot take the worker down or
leak into later measurements: the child dies, the candidate in flight is recorded as failed, and a
fresh child carries on with the rest.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from service.specs import GemmSpec
from service.specs.conv2d import Conv2dSpec
from worker.device import DeviceInfo, visible_gpus
from worker.kernels.compiler import CompileOutcome, Compiler
from worker.kernels.config import KernelConfig
from worker.kernels.hardware import hardware_for
from worker.kernels.prune import PruneReport
from worker.kernels.render import activation_of
from worker.measure_process import MeasurementProcess
from worker.runtime.launch_meta import plan_entry
from worker.selection import leader_twins, select_conv, select_gemm
from worker.step import BuiltKernel, Progress, StepFailed, StepOutcome

DEFAULT_LIMIT = int(os.environ.get("KILN_TUNE_LIMIT", "12"))


def physical_gpu(index: int) -> str:
    """The device the child must see: our index counts within our own CUDA_VISIBLE_DEVICES."""
    visible = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    return visible[index] if index < len(visible) else str(index)


def plan_epilogue(spec: GemmSpec | Conv2dSpec) -> dict[str, Any]:
    """What the measurement process needs of a spec's epilogue (gpu_bench.Problem's second argument):
    its operands and the activation applied last."""
    parts = spec.epilogue.parts
    return {"bias": parts.bias, "residual": parts.residual, "activation": activation_of(spec.epilogue).value}


class GpuTuningStep:
    def __init__(self, gpu_index: int = 0, *, limit: int = DEFAULT_LIMIT, data_dir: Path | None = None,
                 jobs: int | None = None) -> None:
        gpus = visible_gpus()
        if len(gpus) <= gpu_index:
            raise RuntimeError(f"no GPU {gpu_index} visible (found {len(gpus)})")
        self._device = gpus[gpu_index]
        self.gpu_index = gpu_index
        self.limit = limit
        self.data_dir = data_dir or Path(os.environ.get("KILN_DATA_DIR", ".kiln"))
        jobs = jobs or int(os.environ.get("KILN_COMPILE_JOBS", "0")) or None  # None: every core
        self.compiler = Compiler(self.data_dir / "compile-cache", jobs=jobs)
        self.measurer = MeasurementProcess(physical_gpu(gpu_index), self.data_dir / "logs" / f"gpu_bench_{gpu_index}.log")
        self.measurer.start()  # its torch import and CUDA set-up overlap registration and the first compile

    def device(self) -> DeviceInfo:
        return self._device

    def close(self) -> None:
        self.measurer.close()

    def run(self, job: dict[str, Any], progress: Progress) -> StepOutcome:
        if job["op"] == "conv2d":
            return self.tune_conv(Conv2dSpec.model_validate(job["spec"]), job["target"]["arch"], progress)
        if job["op"] != "gemm":
            raise StepFailed(f"no {job['op']} templates in this generator version", retryable=False)
        spec = GemmSpec.model_validate(job["spec"])
        return self.tune(spec, job["target"]["arch"], progress)

    def tune(self, spec: GemmSpec, arch: str, progress: Progress) -> StepOutcome:
        if spec.batch != 1:
            raise StepFailed("batched GEMM (batch > 1) is not generated yet", retryable=False)
        start = time.monotonic()
        chosen = select_gemm(spec, arch, hardware_for(arch, self._device.sm_count), self.limit)
        return self._compile_and_measure(spec, chosen.report, chosen.variants, arch, progress,
                                         select_seconds=time.monotonic() - start)

    def tune_conv(self, spec: Conv2dSpec, arch: str, progress: Progress) -> StepOutcome:
        """NCHW specs are tuned as NHWC (the result's launch contract tells the client to transform
        at the boundaries, and to pad channels)."""
        start = time.monotonic()
        chosen = select_conv(spec, arch, hardware_for(arch, self._device.sm_count), self.limit)
        if not chosen.report.kept:
            raise StepFailed(f"no conv kernel fits this problem: {chosen.report.examples}", retryable=False)
        return self._compile_and_measure(spec, chosen.report, chosen.variants, arch, progress,
                                         select_seconds=time.monotonic() - start)

    def tune_configs(self, spec: GemmSpec | Conv2dSpec, configs: list[KernelConfig], arch: str, progress: Progress) -> StepOutcome:
        """Verify and time exactly these configs: experiments that pit near neighbours (one
        template parameter apart) against each other, which the ranked, spread-out search seldom does."""
        report = PruneReport(total=len(configs), survivors=len(configs), kept=configs)
        return self._compile_and_measure(spec, report, configs, arch, progress)

    def _compile_and_measure(self, spec: GemmSpec | Conv2dSpec, report: PruneReport, variants: list[KernelConfig],
                             arch: str, progress: Progress, select_seconds: float = 0.0) -> StepOutcome:
        compiled_cfgs = report.kept
        phases = {"select": select_seconds}
        start = time.monotonic()
        progress(phase="compiling", generated=report.total, compiled=0)
        done = {"n": 0}

        def on_done(_o: CompileOutcome) -> None:
            done["n"] += 1
            progress(phase="compiling", generated=report.total, compiled=done["n"])

        outcomes = self.compiler.compile_all(compiled_cfgs, target_arch=arch, on_done=on_done)
        phases["compile"] = time.monotonic() - start
        by_compiled = {o.config.compiled: o for o in outcomes}
        candidates: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        with tempfile.TemporaryDirectory(prefix="kiln-tune-") as tmp:
            for cfg in variants:
                o = by_compiled[cfg.compiled]
                if not o.ok:
                    if cfg == cfg.compiled or cfg.padding or cfg.s2d:
                        failed.append({"name": cfg.name, "config": cfg.to_dict(), "status": "compile_failed",
                                       "reason": (o.error or "") + "\n" + o.log[-4000:], "compile_seconds": o.seconds})
                    continue
                path = Path(tmp) / f"{cfg.variant_name}.cubin"  # one file per cubin, shared by its launch variants
                if not path.exists():
                    path.write_bytes(o.cubin or b"")
                conv_as_gemm = isinstance(spec, Conv2dSpec) and not cfg.is_conv
                built = {"compile_seconds": o.seconds, "source_sha256": o.source_sha256, "arch": o.arch}
                twins = [{**plan_entry(t, str(path), conv_as_gemm=conv_as_gemm), **built} for t in leader_twins(cfg)]
                candidates.append({**plan_entry(cfg, str(path), conv_as_gemm=conv_as_gemm), **built,
                                   "leader_twins": twins})
            if not candidates:
                raise StepFailed("no variant compiled: " + "; ".join(f["reason"][:200] for f in failed[:3]), retryable=False)
            start = time.monotonic()
            results = self._measure(spec, candidates, Path(tmp), progress, report.total, len(outcomes))
            phases["measure"] = time.monotonic() - start
            out = self._outcome(spec, candidates, failed, results)  # reads the winner's cubin from tmp
        out.phase_seconds = {name: round(s, 3) for name, s in phases.items()}
        out.compiled_fresh = sum(1 for o in outcomes if not o.cached)
        out.phase_seconds.update({"measure." + name: round(s, 3) for name, s in results.get("phase_seconds", {}).items()})
        return out

    def _measure(self, spec: GemmSpec | Conv2dSpec, candidates: list[dict[str, Any]], tmp: Path, progress: Progress,
                 generated: int, compiled: int) -> dict[str, Any]:
        plan = {"spec": spec.model_dump(mode="json"), "candidates": candidates, "epilogue": plan_epilogue(spec),
                "skip": []}
        crashed: dict[str, str] = {}
        counters = {"verified": 0, "timed": 0}
        for _attempt in range(len(candidates) + 1):
            plan_path = tmp / "plan.json"
            plan_path.write_text(json.dumps(plan))
            in_flight = None
            final = None
            for ev in self.measurer.events(plan_path):
                if ev["event"] == "start":
                    in_flight = ev["name"]
                elif ev["event"] == "verified":
                    counters["verified"] += 1
                    in_flight = ev["name"] if ev.get("ok") else None
                elif ev["event"] == "timed":
                    counters["timed"] += 1
                    in_flight = None
                elif ev["event"] == "crashed":
                    crashed[ev["name"]] = ev["reason"]
                    in_flight = ev["name"]
                elif ev["event"] == "done":
                    final = ev["results"]
                progress(phase="measuring", generated=generated, compiled=compiled, **counters)
            if final is not None:
                for name, why in crashed.items():
                    final["candidates"][name] = {"status": "launch_failed", "reason": why}
                return final
            stderr = self.measurer.stderr_tail()
            if in_flight is None:
                why = (f"stalled for {self.measurer.stall_seconds:.0f} s" if self.measurer.stalled else
                       f"failed: {stderr}")
                raise StepFailed(f"GPU measurement process {why}", retryable=True)
            last = stderr.strip().splitlines()[-1] if stderr.strip() else self.measurer.returncode
            crashed.setdefault(in_flight, f"hung: nothing from it for {self.measurer.stall_seconds:.0f} s, so its "
                                          f"measurement process was killed" if self.measurer.stalled
                               else f"crashed the CUDA context: {last}")
            plan["skip"] = sorted({*plan["skip"], in_flight})  # re-measure the rest in a fresh process
        raise StepFailed("GPU measurement process kept crashing", retryable=True)

    def _outcome(self, spec: GemmSpec | Conv2dSpec, candidates: list[dict[str, Any]], failed: list[dict[str, Any]],
                 results: dict[str, Any]) -> StepOutcome:
        by_name = {c["name"]: c for c in candidates}
        by_name.update({t["name"]: t for c in candidates for t in c.get("leader_twins", [])})
        rows = list(failed)
        for name, r in results["candidates"].items():
            c = by_name[name]
            rows.append({"name": name, "config": c["config"], "status": r["status"], "reason": r.get("reason"),
                         "compile_seconds": c["compile_seconds"], "time_us": r.get("median_us"),
                         "spread_us": r.get("spread_us"), "tflops": r.get("tflops")})
        retimed = results.get("retimed", {})
        lib_key = "library:" + results["best_library"]
        kernel_times = {n: v for n, v in retimed.items() if not n.startswith("library:")}
        baseline = retimed.get(lib_key) or results["library"][results["best_library"]]
        out = StepOutcome(candidates=rows, baseline_library=f"{results['best_library']} (torch)",
                          baseline_time_us=baseline["median_us"])
        out.library_times_us = {name: r["median_us"] for name, r in
                                {**results.get("library", {}), **results.get("library_reference", {})}.items()}
        if not kernel_times:
            return out  # nothing verified: the library it is
        best = min(kernel_times, key=lambda n: kernel_times[n]["median_us"])
        c = by_name[best]
        cubin = Path(c["cubin_path"]).read_bytes()
        cfg = KernelConfig.from_dict(c["config"])
        meta = {"name": cfg.variant_name, "family": cfg.family.value, "arch": c["arch"], "config": cfg.compiled.to_dict(),
                "source_sha256": c["source_sha256"], "compile_seconds": c["compile_seconds"], "compile_log": "",
                "launch": c["launch"]}
        t = kernel_times[best]
        out.kernels = [BuiltKernel(cubin=cubin, meta=meta)]
        out.winner_index = 0
        out.config = cfg.to_dict()
        out.launch = {**c["launch"], "runtime": c["runtime"]}
        if isinstance(spec, Conv2dSpec) and spec.layout.value == "NCHW":
            out.launch["conv"] = {**out.launch["conv"], "client_transforms": (
                "tuned as NHWC: transform NCHW->NHWC (channels_last) once at the first conv of a chain and back "
                "after the last; a channels_last tensor needs no copy")}
        out.kernel_time_us = t["median_us"]
        out.kernel_spread_us = t["spread_us"]
        out.tflops = spec.flops / t["median_us"] / 1e6
        return out


def progress_printer(**kw: Any) -> None:
    print(json.dumps({"t": round(time.time(), 1), **kw}), flush=True)
