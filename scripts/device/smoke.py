"""Device smoke run: tune one GEMM end to end through GpuTuningStep and print what happened."""

from __future__ import annotations

import json
import sys
import time

from service.specs import GemmSpec
from worker.gpu_step import GpuTuningStep, progress_printer


def main() -> None:
    m, n, k = (int(x) for x in sys.argv[1].split("x"))
    epi = sys.argv[2] if len(sys.argv) > 2 else "none"
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    step = GpuTuningStep(0, limit=limit, jobs=16)
    t = time.time()
    out = step.tune(GemmSpec(m=m, n=n, k=k, epilogue=epi), "sm_90a", progress_printer)
    print("seconds", round(time.time() - t, 1))
    for c in out.candidates:
        print(json.dumps({k_: c.get(k_) for k_ in ("name", "status", "reason", "time_us", "tflops", "compile_seconds")})[:600])
    print("WINNER", out.kernels[0].meta["name"] if out.kernels else None,
          out.kernel_time_us, "baseline", out.baseline_library, out.baseline_time_us,
          "ratio", (out.baseline_time_us / out.kernel_time_us) if out.kernel_time_us else None)


if __name__ == "__main__":
    main()
