"""TEST DOUBLE: a tuning step that pretends to be a GPU.

Used by the queue, crash and load tests to run many real worker processes against a real
service and database without a GPU. It fabricates a deterministic "cubin" per spec key and
records each execution (one line per run) in KILN_SIM_LOG, so tests can count executions.
Never used outside tests.
"""

from __future__ import annotations

import hashlib
import os
import random
import time
from typing import Any

from worker.device import DeviceInfo
from worker.step import BuiltKernel, Progress, StepFailed, StepOutcome


class SimulatedGpuStep:
    def __init__(self, gpu_index: int = 0) -> None:
        self.gpu_index = gpu_index
        self.min_s = float(os.environ.get("KILN_SIM_MIN_SECONDS", "0.01"))
        self.max_s = float(os.environ.get("KILN_SIM_MAX_SECONDS", "0.05"))
        self.log_path = os.environ.get("KILN_SIM_LOG")
        major, minor = os.environ.get("KILN_SIM_CAPABILITY", "9.0").split(".")
        self.capability = (int(major), int(minor))

    def device(self) -> DeviceInfo:
        return DeviceInfo(gpu_name=os.environ.get("KILN_SIM_GPU", "Simulated H200"), gpu_index=self.gpu_index,
                          compute_capability=self.capability, sm_count=132, driver="0.0-sim", cuda_version="13.0")

    def run(self, job: dict[str, Any], progress: Progress) -> StepOutcome:
        if self.log_path:
            with open(self.log_path, "a") as f:  # O_APPEND: lines from many processes don't interleave
                f.write(f"{job['id']} {os.getpid()}\n")
        progress(phase="compiling", generated=4, compiled=0)
        if os.environ.get("KILN_SIM_FAIL_EPILOGUE") == job["spec"].get("epilogue"):
            raise StepFailed("simulated: no variant passed verification", retryable=False)
        time.sleep(random.uniform(self.min_s, self.max_s))
        progress(phase="timing", generated=4, compiled=4, verified=4, timed=4)
        cubin = b"\x7fELF-simulated-" + hashlib.sha256(job["spec_key"].encode()).digest() * 64
        meta = {"name": "sim_kernel", "family": "simulated", "arch": job["target"]["arch"], "config": {"tile": [128, 128, 64]},
                "source_sha256": hashlib.sha256(b"sim").hexdigest(), "compile_seconds": 0.0, "compile_log": "",
                "launch": {"entry": "gemm_kernel"}}
        return StepOutcome(
            kernels=[BuiltKernel(cubin=cubin, meta=meta)], winner_index=0, config={"tile": [128, 128, 64]},
            launch={"grid": [1, 1, 1]}, kernel_time_us=10.0, kernel_spread_us=0.1, tflops=100.0,
            baseline_library="simulated-cublas", baseline_time_us=12.0,
            candidates=[{"name": "sim_kernel", "config": {"tile": [128, 128, 64]}, "status": "timed", "time_us": 10.0}],
        )
