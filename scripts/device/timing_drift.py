"""The timing-stability test's kernel on a just-started GPU, watched for a minute: settle as every
plan does, then 100-launch medians back to back for `--seconds`, each with its time since start,
while `nvidia-smi` samples SM clock, power and temperature (started by the device script). Shows
when and how far a cold H200's timing drifts (the test failed cold in sessions 6-9)."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from tests.gpu.test_gpu_tuning import SM80_NONE, _candidate, _problem
from worker import gpu_bench
from worker.kernels.compiler import Compiler
from worker.runtime.launch_meta import plan_entry


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--seconds", type=float, default=45.0)
    args = p.parse_args()
    [o] = Compiler(Path(os.environ["KILN_DATA_DIR"]) / "compile-cache").compile_all([SM80_NONE], target_arch="sm_90a")
    path = Path("/tmp") / f"{o.config.variant_name}.cubin"
    path.write_bytes(o.cubin or b"")
    entry = plan_entry(o.config, str(path))
    prob = _problem("none", 4096, 4096, 4096)
    c = _candidate(entry, prob)
    fns = [gpu_bench._bind(c, ops) for ops in gpu_bench.rotating_sets(prob)]
    t0 = time.monotonic()
    gpu_bench.settle(fns)
    print(json.dumps({"settled_after_s": round(time.monotonic() - t0, 2)}), flush=True)
    while time.monotonic() - t0 < args.seconds:
        med = gpu_bench.summarize(gpu_bench.time_launches(fns, 100))["median_us"]
        print(json.dumps({"t_s": round(time.monotonic() - t0, 2), "wall": time.time(), "median_us": round(med, 1)}),
              flush=True)


if __name__ == "__main__":
    main()
