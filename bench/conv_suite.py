"""`kiln bench conv2d`: tune every Conv2d of the suite through the worker's own tuning step.

    python -m bench.conv_suite --suite ../shared/bench/suite.json [--only NAME ...] [--limit 8]
    python -m bench.conv_suite --replay bench/results/conv2d_….json   # re-time those winners only

Per layer: the winner (iterator, tile, channel padding), TFLOP/s, and in the same process cuDNN
(torch, channels_last, cudnn.benchmark=True) for the conv alone, conv + the epilogue as torch ops
(what eager users run) and cuDNN's own fused conv+bias+ReLU where torch exposes it; the ratios,
the candidate funnel and the tuning time. Where the winner's contract has the client pad or fold
the activation (stem convs), that boundary transform is timed too and a ratio including it is
given. `--replay` skips the search, as `kiln bench gemm --replay` does: each layer runs exactly
the winner a stored result names (verified, timed beside cuDNN in the same run), to see what a
template or runtime change did to the kernels Kiln ships. Writes bench/results/conv2d_<gpu>_<date>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from bench.common import device_provenance, geomean, save_result
from service.specs.conv2d import Conv2dSpec
from worker.gpu_step import GpuTuningStep
from worker.kernels.config import KernelConfig
from worker.step import StepOutcome


def tune_one(step: GpuTuningStep, entry: dict[str, Any], replay: KernelConfig | None = None) -> dict[str, Any]:
    spec = Conv2dSpec.model_validate({k: v for k, v in entry.items() if k != "name"})
    counters: dict[str, Any] = {}
    t0 = time.monotonic()
    if replay is not None:
        out = step.tune_configs(spec, [replay], "sm_90a", lambda **kw: counters.update(kw))
    else:
        out = step.tune_conv(spec, "sm_90a", lambda **kw: counters.update(kw))
    seconds = time.monotonic() - t0
    lib = out.library_times_us
    kiln = out.kernel_time_us
    fused = {k: v for k, v in lib.items() if k.startswith("cudnn_fused")}

    def ratio(t: float | None) -> float | None:
        return t / kiln if t and kiln else None

    transform = input_transform_us(spec, out)
    statuses: dict[str, int] = {}
    for c in out.candidates:
        statuses[c["status"]] = statuses.get(c["status"], 0) + 1
    return {
        "name": entry["name"], "spec": spec.model_dump(mode="json"), "implicit_gemm_mnk": spec.implicit_gemm_mnk,
        "winner": out.config, "kiln_us": kiln, "kiln_spread_us": out.kernel_spread_us, "kiln_tflops": out.tflops,
        "cudnn_conv_only_us": lib.get("cudnn_conv_only"), "cudnn_plus_torch_us": lib.get("cudnn+torch"),
        "cudnn_fused_us": min(fused.values()) if fused else None, "cudnn_fused_path": min(fused, key=lambda name: fused[name]) if fused else None,
        "ratio_conv_only_over_kiln": ratio(lib.get("cudnn_conv_only")),
        "ratio_unfused_over_kiln": ratio(lib.get("cudnn+torch")),
        "ratio_fused_over_kiln": ratio(min(fused.values()) if fused else None),
        "input_transform_us": transform,
        "ratio_conv_only_over_kiln_with_transform": (lib["cudnn_conv_only"] / (kiln + transform)
                                                     if transform and kiln and lib.get("cudnn_conv_only") else None),
        "baseline": out.baseline_library, "baseline_us": out.baseline_time_us,
        "candidate_status": statuses, "enumerated": counters.get("generated"), "compiled": counters.get("compiled"),
        "verified": counters.get("verified"), "timed": counters.get("timed"), "tuning_seconds": round(seconds, 1),
        "candidates": out.candidates,
    }


def input_transform_us(spec: Conv2dSpec, out: StepOutcome) -> float | None:
    """Median time of the client's pad / space-to-depth fold of the activation for this winner,
    through the client helper itself (KilnConv2d.to_kernel_input: the cubin's own transform kernel
    for sm90 convs), rotating inputs larger than the L2; None when the winner's contract asks for
    neither. BOLT does such transforms once, at the network's boundary (for the stem: the data
    loader could emit the folded layout)."""
    if not out.config or out.winner_index is None or not out.launch:
        return None
    cfg = KernelConfig.from_dict(out.config)
    if not (cfg.pad_c or cfg.s2d):
        return None
    import statistics

    import torch

    from worker.gpu_bench import time_launches
    from worker.runtime.torch_conv import KilnConv2d

    conv = KilnConv2d(out.kernels[out.winner_index].cubin, out.launch, spec.model_dump(mode="json"))
    w = torch.empty(spec.k, spec.c, spec.r, spec.s, device="cuda", dtype=torch.half)
    xs = [torch.randn(spec.n, spec.c, spec.h, spec.w, device="cuda", dtype=torch.half)
          .contiguous(memory_format=torch.channels_last) for _ in range(8)]
    kp = conv.kernel_problem(xs[0], w)

    def fold(x: torch.Tensor) -> Any:
        return lambda: conv.to_kernel_input(x, kp)
    return statistics.median(time_launches([fold(x) for x in xs], 100))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", type=Path, default=Path("../shared/bench/suite.json"))
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--limit", type=int, default=8, help="compiled variants per layer")
    p.add_argument("--gpu", type=int, default=0)
    p.add_argument("--out", type=Path, default=None, help="write the JSON here instead of bench/results/")
    p.add_argument("--replay", type=Path, default=None,
                   help="a stored conv2d result: re-time each layer's recorded winner instead of searching")
    args = p.parse_args()
    suite = json.loads(args.suite.read_text())["conv2d"]
    if args.only:
        suite = [c for c in suite if c["name"] in args.only]
    step = GpuTuningStep(args.gpu, limit=args.limit, jobs=os.cpu_count())
    winners = ({r["name"]: KernelConfig.from_dict(r["winner"]) for r in json.loads(args.replay.read_text())["layers"]
                if r.get("winner")} if args.replay else {})
    if args.replay:  # one parallel compile batch (each layer's tune call then hits the cache)
        suite = [c for c in suite if c["name"] in winners]
        step.compiler.compile_all([winners[c["name"]] for c in suite], target_arch="sm_90a")
    rows = []
    for entry in suite:
        rows.append(tune_one(step, entry, winners.get(entry["name"])))
        r = rows[-1]
        if args.replay:
            r["replayed_from"] = str(args.replay)
        if args.out:  # after every layer, so a run cut short still leaves its numbers
            args.out.write_text(json.dumps({"partial": True, "layers": rows}, indent=1, default=str))
        print(json.dumps({k: r[k] for k in ("name", "kiln_tflops", "ratio_conv_only_over_kiln", "ratio_unfused_over_kiln",
                                            "ratio_fused_over_kiln", "tuning_seconds")}), flush=True)
    dev = step.device()
    payload = {**device_provenance(dev),
               "benchmark": "conv2d_suite", "limit": args.limit,
               "geomean_conv_only_over_kiln": geomean([r["ratio_conv_only_over_kiln"] for r in rows]),
               "geomean_unfused_over_kiln": geomean([r["ratio_unfused_over_kiln"] for r in rows]),
               "geomean_fused_over_kiln": geomean([r["ratio_fused_over_kiln"] for r in rows]),
               "layers": rows}
    save_result(payload, "conv2d", dev.gpu_name, args.out)
    print(f"\n{'layer':<26}{'GEMM M×N×K':>22}{'Kiln TF/s':>10}{'conv':>7}{'+ops':>7}{'fused':>7}{'tune s':>8}")
    for r in rows:
        m, n, k = r["implicit_gemm_mnk"]

        def f(x: float | None) -> str:
            return f"{x:.2f}" if x else "-"
        kt = f"{r['kiln_tflops']:.0f}" if r["kiln_tflops"] else "-"
        print(f"{r['name']:<26}{m:>10}×{n}×{k:<6}{kt:>10}{f(r['ratio_conv_only_over_kiln']):>7}"
              f"{f(r['ratio_unfused_over_kiln']):>7}{f(r['ratio_fused_over_kiln']):>7}{r['tuning_seconds']:>8}")
    for key in ("conv_only", "unfused", "fused"):
        g = payload[f"geomean_{key}_over_kiln"]
        print(f"geometric mean cuDNN {key} / Kiln: {g:.3f}" if g else f"no {key} ratios")
    for r in rows:
        if r["input_transform_us"]:
            print(f"{r['name']}: the client's input transform {r['input_transform_us']:.1f} µs; conv alone "
                  f"{r['ratio_conv_only_over_kiln_with_transform']:.2f}x cuDNN with it")


if __name__ == "__main__":
    main()
