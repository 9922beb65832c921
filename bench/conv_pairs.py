"""`kiln bench conv-pairs` (`python -m bench.conv_pairs`): CUTLASS 2.x conv kernels by CTAs per SM.

    kiln bench conv-pairs --suite ../shared/bench/suite.json [--only r50.res2.1x1a …] [--out FILE]

cuDNN runs ResNet-50's res2.1x1a with CUTLASS's own 2.x kernel (`cutlass_tensorop_f16_s16816fprop_
optimized_f16_256x64_32x4_nhwc_align8`: 4 warps of 64x64, 4 stages, 250 registers, 80 KB of shared
memory, so two CTAs per SM) at 10.5 µs, while Kiln's 2.x candidates at the same tile (8 warps of
32x64, 167 registers: one CTA per SM) took 21.4 µs and no 2.x kernel ever won a layer
(`conv2d_h200_20261130_session9_d.json`). The ranking model counts waves of one CTA per SM, so it
cannot see residency. This times, per layer, a grid of 2.x tiles × warp tiles × stages chosen for
two or three resident CTAs next to the one-CTA kind, and the layer's session-9 winner, through the
worker's own path (verified, timed against cuDNN in the same run, leaders re-timed interleaved).
Writes bench/results/conv_pairs_<gpu>_<date>.json.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bench.common import device_provenance, save_result
from service.specs.conv2d import Conv2dSpec
from service.specs.gemm import Layout
from worker.kernels.config import ConvIterator, Family, KernelConfig
from worker.kernels.conv_problem import ConvProblem
from worker.kernels.hardware import hardware_for
from worker.kernels.prune import smem_capacity

LAYERS = ("r50.res2.1x1a", "r50.res2.1x1c", "r50.res2.3x3", "bolt.conv_bias_hardswish", "r50.res3.1x1b",
          "r50.res4.1x1b", "r50.res5.1x1c")
# (tile, warp tile, stages); registers measured with ptxas -v (sm_90a, bias_relu): 4 warps of 64x64
# 236-250, 4 warps of 64x32 154, 8 warps of 32x64 167 (one CTA per SM by registers).
SM80_GRID = [((256, 64, 32), (64, 64, 32), 3), ((256, 64, 32), (64, 64, 32), 4), ((256, 64, 32), (64, 64, 32), 5),
             ((128, 128, 32), (64, 64, 32), 3), ((128, 128, 32), (64, 64, 32), 4),
             ((128, 64, 32), (64, 32, 32), 4), ((128, 64, 32), (64, 32, 32), 5), ((128, 64, 64), (64, 32, 64), 3), ((64, 64, 32), (32, 32, 32), 5),
             ((256, 128, 32), (64, 64, 32), 3), ((256, 64, 32), (32, 64, 32), 3)]
SESSION9 = Path(__file__).parent / "results" / "conv2d_h200_20261130_session9_d.json"


def sm80_grid(spec: Conv2dSpec) -> list[KernelConfig]:
    """The grid under the layer's epilogue, optimized iterator, wherever the shared memory holds it: the
    soft rules (stages against K iterations, tiles against the GPU) are what this measures."""
    cp = ConvProblem.from_spec(spec)
    align = cp.max_alignment()
    configs = [KernelConfig(family=Family.sm80_conv_fprop, dtype=cp.dtype, layout_a=Layout.row, layout_b=Layout.col,
                            epilogue=cp.epilogue, tile=tile, warp=warp, instruction=(16, 8, 16), stages=stages,
                            swizzle=4 if tile[0] * tile[1] >= 128 * 128 else 1, alignment=(align[0], align[0], align[2]),
                            conv_iterator=ConvIterator.optimized)
               for tile, warp, stages in SM80_GRID]
    hw = hardware_for("sm_90a", 132)
    return [c for c in configs if smem_capacity(c, cp.gemm, hw) is None]


def session9_winner(name: str) -> KernelConfig | None:
    if not SESSION9.exists():
        return None
    for layer in json.loads(SESSION9.read_text())["layers"]:
        if layer["name"] == name and layer.get("winner"):
            return KernelConfig.from_dict(layer["winner"])
    return None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", type=Path, default=Path("../shared/bench/suite.json"))
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    entries = {e["name"]: e for e in json.loads(args.suite.read_text())["conv2d"]}
    names = [n for n in (args.only or LAYERS) if n in entries]
    specs = {n: Conv2dSpec.model_validate({k: v for k, v in entries[n].items() if k != "name"}) for n in names}
    grids = {n: sm80_grid(s) + [w for w in [session9_winner(n)] if w is not None and w.epilogue is s.epilogue]
             for n, s in specs.items()}

    from worker.gpu_step import GpuTuningStep

    step = GpuTuningStep(0)
    rows: list[dict[str, Any]] = []
    try:  # every cubin in one parallel batch first: each layer below hits the cache
        step.compiler.compile_all([c for g in grids.values() for c in g], target_arch="sm_90a")
        for name in names:
            out = step.tune_configs(specs[name], grids[name], "sm_90a", lambda **_: None)
            lib = out.library_times_us.get("cudnn_conv_only")
            for c in sorted(out.candidates, key=lambda c: c.get("time_us") or float("inf")):
                rows.append({"layer": name, "name": c["name"], "status": c["status"], "time_us": c.get("time_us"),
                             "spread_us": c.get("spread_us"), "cudnn_conv_only_us": lib,
                             "ratio_conv_only_over_kiln": lib / c["time_us"] if lib and c.get("time_us") else None,
                             "library": out.baseline_library, "library_us": out.baseline_time_us})
                print(f"{name:24s} {c['name']:72s} {c['status']:10s} {c.get('time_us') or 0:7.2f} µs  "
                      f"cuDNN alone {lib or 0:6.2f} µs", flush=True)
    finally:
        step.close()
    payload = {**device_provenance(step.device()), "benchmark": "conv_pairs",
               "grid": [[list(t), list(w), s] for t, w, s in SM80_GRID], "rows": rows}
    print(json.dumps({"saved": str(save_result(payload, "conv_pairs", step.device().gpu_name, args.out))}))


if __name__ == "__main__":
    main()
