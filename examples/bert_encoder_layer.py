"""A BERT-base encoder layer with its four GEMMs on Kiln kernels, against eager PyTorch (GPU host).

    KILN_SERVER_URL=… KILN_TOKEN=… python examples/bert_encoder_layer.py [--tune]

--tune submits the layer's GEMMs and waits for them first. Prints max error vs eager and the
median time of both (CUDA events, 100 runs after warm-up) two ways: run eagerly (host time per op
counts: on a slow host both are host-bound) and replayed from a CUDA graph (GPU time only, how a
serving stack runs a captured model); writes examples/bert_encoder_layer.json.
Last run on the H200: examples/bert_encoder_layer.json (see the README's Python client section).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
import torch.nn.functional as F

from bench.common import cuda_median_us, graph_median_us
from service.client import KilnClient
from service.settings import get_settings
from worker.runtime.torch_ops import KernelRegistry, KilnLinear, set_registry

H, FF, HEADS, TOKENS = 768, 3072, 12, 4096


class Layer(torch.nn.Module):
    """Post-LN BERT layer. With kiln=True the four linears are KilnLinear (GELU fused into ffn1)."""

    def __init__(self, kiln: bool) -> None:
        super().__init__()
        make = KilnLinear if kiln else torch.nn.Linear
        self.kiln = kiln
        self.qkv, self.out, self.ffn2 = make(H, 3 * H), make(H, H), make(FF, H)
        self.ffn1 = KilnLinear(H, FF, activation="gelu") if kiln else torch.nn.Linear(H, FF)
        self.ln1, self.ln2 = torch.nn.LayerNorm(H), torch.nn.LayerNorm(H)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, HEADS, H // HEADS).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, s, H)
        x = self.ln1(x + self.out(a))
        h = self.ffn1(x) if self.kiln else F.gelu(self.ffn1(x), approximate="tanh")
        return self.ln2(x + self.ffn2(h))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tune", action="store_true")
    args = p.parse_args()
    client = KilnClient.from_settings(get_settings())
    if args.tune:
        client.tune_and_wait([{"op": "gemm", "m": TOKENS, "n": n, "k": k, "epilogue": e} for n, k, e in
                              ((3 * H, H, "bias"), (H, H, "bias"), (FF, H, "bias_gelu"), (H, FF, "bias"))], timeout=3600)
    set_registry(KernelRegistry(client, submit_untuned=False))
    torch.manual_seed(0)
    eager = Layer(kiln=False).cuda().half().eval()
    kiln = Layer(kiln=True).cuda().half().eval()
    kiln.load_state_dict(eager.state_dict())
    x = torch.randn(TOKENS // 128, 128, H, device="cuda", dtype=torch.half)
    with torch.no_grad():
        err = float((kiln(x).float() - eager(x).float()).abs().max())
        t_eager, t_kiln = cuda_median_us(eager, x), cuda_median_us(kiln, x)
        g_eager, g_kiln = graph_median_us(eager, x), graph_median_us(kiln, x)
    out = {"max_abs_error": err, "eager_us": t_eager, "kiln_us": t_kiln, "speedup": t_eager / t_kiln,
           "graph_eager_us": g_eager, "graph_kiln_us": g_kiln, "graph_speedup": g_eager / g_kiln,
           "gpu": torch.cuda.get_device_name()}
    print(json.dumps(out))
    Path(__file__).with_suffix(".json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
