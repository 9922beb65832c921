"""A ResNet-50 bottleneck block (res2, identity shortcut) on Kiln conv kernels vs eager PyTorch.

    KILN_SERVER_URL=… KILN_TOKEN=… python examples/resnet_bottleneck.py [--tune]

The block: 1x1 256→64 +bias+ReLU, 3x3 64→64 +bias+ReLU, 1x1 64→256 +bias, + x, ReLU; batch 32,
56×56, fp16, channels_last (NHWC in memory: Kiln's layout, so no transform between convs).
--tune submits the three convs and waits. Each conv runs on its Kiln kernel when the service says
Kiln beat cuDNN for it ("recommendation": "kiln"); otherwise the block keeps cuDNN for that conv,
as the runtime's fallback does. Prints the max error vs eager and the median time of both (CUDA
events, 100 runs after warm-up) and writes examples/resnet_bottleneck.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from bench.common import cuda_median_us, graph_median_us
from service.client import KilnClient
from service.settings import get_settings
from worker.runtime.torch_conv import KilnConv2d

N, HW = 32, 56
CONVS = {  # name: (C, K, R, padding, epilogue)
    "reduce": (256, 64, 1, 0, "bias_relu"),
    "spatial": (64, 64, 3, 1, "bias_relu"),
    "expand": (64, 256, 1, 0, "bias"),
}


def problem(c: int, k: int, r: int, pad: int, epilogue: str) -> dict[str, Any]:
    return {"op": "conv2d", "n": N, "h": HW, "w": HW, "c": c, "k": k, "r": r, "s": r, "padding": pad,
            "dtype": "f16", "epilogue": epilogue}


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.convs = torch.nn.ModuleDict({name: torch.nn.Conv2d(c, k, r, padding=pad)
                                          for name, (c, k, r, pad, _e) in CONVS.items()})
        self.kiln: dict[str, KilnConv2d] = {}

    def conv(self, name: str, x: torch.Tensor) -> torch.Tensor:
        m = self.convs[name]
        if name in self.kiln:
            return self.kiln[name](x, m.weight, m.bias)
        y = F.conv2d(x, m.weight, m.bias, padding=m.padding)
        return torch.relu(y) if CONVS[name][4] == "bias_relu" else y

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.conv("reduce", x)
        h = self.conv("spatial", h)
        return torch.relu(self.conv("expand", h) + x)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tune", action="store_true")
    args = p.parse_args()
    client = KilnClient.from_settings(get_settings())
    problems = {name: problem(*spec) for name, spec in CONVS.items()}
    if args.tune:
        client.tune_and_wait(list(problems.values()), timeout=3600)
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    block = Block().cuda().half().to(memory_format=torch.channels_last).eval()
    used = {}
    for name, prob in problems.items():
        result = client.lookup(prob)
        if result and result.get("kernel") and result.get("recommendation") == "kiln":
            sha = result["kernel"]["sha256"]
            block.kiln[name] = KilnConv2d.from_result(client.fetch(sha), result, client.meta(sha))
        used[name] = {"kiln": name in block.kiln, "speedup_vs_library": (result or {}).get("speedup"),
                      "library": ((result or {}).get("baseline") or {}).get("library")}
    x = torch.randn(N, 256, HW, HW, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    kernels, block.kiln = block.kiln, {}
    with torch.no_grad():
        ref = block(x)
        t_eager, g_eager = cuda_median_us(block, x), graphed_us(block, x)
        block.kiln = kernels
        out = block(x)
        err = float((out.float() - ref.float()).abs().max())
        rel = float((out.float() - ref.float()).norm() / ref.float().norm())
        t_kiln, g_kiln = cuda_median_us(block, x), graphed_us(block, x)
    res = {"max_abs_error": err, "rel_error": rel, "eager_us": t_eager, "kiln_us": t_kiln,
           "speedup": t_eager / t_kiln, "graph_eager_us": g_eager, "graph_kiln_us": g_kiln,
           "graph_speedup": g_eager / g_kiln if g_eager and g_kiln else None, "convs": used, "gpu": torch.cuda.get_device_name()}
    print(json.dumps(res))
    Path(__file__).with_suffix(".json").write_text(json.dumps(res, indent=1))


def graphed_us(block: torch.nn.Module, x: torch.Tensor) -> float | None:
    """The block replayed from a CUDA graph; None (and a note on stderr) if capture fails."""
    try:
        return graph_median_us(block, x)
    except RuntimeError as exc:
        print(f"CUDA graph timing skipped: {exc}", file=sys.stderr)
        return None


if __name__ == "__main__":
    main()
