"""Launch a few hand-picked variants one per process with CUDA_LAUNCH_BLOCKING=1 and print the
prepared launch (geometry, pointer slots, TMA descriptors) and the verification result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.compiler import Compiler
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler
from worker.runtime.launch_meta import plan_entry

CONFIGS = [
    KernelConfig(Family.sm80_tensorop, DType.f16, Layout.row, Layout.col, Epilogue.bias, (128, 128, 32),
                 warp=(64, 64, 32), stages=4, swizzle=4),
    KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias, (128, 128, 64),
                 schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.nosmem, tile_scheduler=TileScheduler.persistent),
    KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (128, 128, 64),
                 schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma, tile_scheduler=TileScheduler.persistent),
    KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias, (128, 128, 64),
                 schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.nosmem, tile_scheduler=TileScheduler.streamk),
]


def child(entry_path: str) -> None:
    import torch

    from worker import gpu_bench

    entry = json.loads(Path(entry_path).read_text())
    spec = {"m": 1024, "n": 1024, "k": 1024, "dtype": "f16", "layout_a": "row", "layout_b": "col", "alpha": 1.0, "beta": 0.0}
    prob = gpu_bench.Problem(spec, entry["epi"])
    scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
    c = gpu_bench.Candidate(entry, prob, 132, torch.cuda.current_stream().cuda_stream, scratch.data_ptr())
    p = c.prepared(1024, 1024, 1024)
    print(json.dumps({"grid": p.grid, "threads": p.threads, "smem": p.smem, "cluster": p.cluster, "ws": p.workspace_bytes,
                      "slots": p.slots, "params": len(p.params),
                      "tma": [d.__dict__ for d in p.tma]}), flush=True)
    print("verify", gpu_bench.verify(c, prob), flush=True)


def main() -> None:
    if len(sys.argv) > 1:
        child(sys.argv[1])
        return
    comp = Compiler(Path(os.environ.get("KILN_DATA_DIR", "/tmp/kiln")) / "compile-cache", jobs=16)
    outs = comp.compile_all(CONFIGS, target_arch="sm_90a")
    for o in outs:
        print("==", o.config.name, o.ok, round(o.seconds, 1), o.error, flush=True)
        if not o.ok:
            continue
        path = Path(f"/tmp/{o.config.variant_name}.cubin")
        path.write_bytes(o.cubin)
        parts = o.config.epilogue.parts
        entry = {**plan_entry(o.config, str(path)),
                 "epi": {"bias": parts.bias, "residual": parts.residual, "activation": "gelu" if "gelu" in o.config.epilogue.value else "identity"}}
        ep = Path(f"/tmp/{o.config.variant_name}.json")
        ep.write_text(json.dumps(entry))
        r = subprocess.run([sys.executable, __file__, str(ep)], capture_output=True, text=True,
                           env={**os.environ, "CUDA_LAUNCH_BLOCKING": "1"}, timeout=120)
        print(r.stdout[-3000:], r.stderr[-1500:], flush=True)


if __name__ == "__main__":
    main()
