"""On a GPU: Kiln's weight-streaming decode kernel verifies at awkward shapes, split over clusters.

The tiles' edges (M not a multiple of the token tile, N of the row tile, K of the 32-wide chunk)
and the cluster reduction (one slice, three, eight) are where such a kernel goes wrong.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.compiler import Compiler
from worker.kernels.config import Family, KernelConfig
from worker.runtime.launch_meta import plan_entry

pytestmark = pytest.mark.gpu

BASE = KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (16, 128, 128),
                    warp=(16, 16, 128), stages=3)
# 64 tokens x 4096 K staged in 16 pieces (its 40 KB budget holds 256 K values at a time), 32-row warps
CONFIGS = {"f16_bias_gelu": BASE,
           "f16_none_64": replace(BASE, epilogue=Epilogue.none, tile=(64, 64, 64), warp=(64, 32, 64), stages=2),
           # K shared by the warps too: 4 row groups x 4 warps along K, 256 K a step, restaged pieces
           "f16_bias_gelu_kwarps": replace(BASE, tile=(16, 64, 256), warp=(16, 16, 64), stages=2),
           "bf16_bias_silu": replace(BASE, dtype=DType.bf16, epilogue=Epilogue.bias_silu, tile=(8, 256, 64),
                                     warp=(8, 32, 32), stages=4)}
SHAPES = [(16, 4096, 4096), (5, 777, 4104), (64, 1000, 2056), (100, 520, 1024), (64, 264, 4096)]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, KernelConfig]:
    cache = Path(os.environ.get("KILN_DATA_DIR", tmp_path_factory.mktemp("kiln"))) / "compile-cache"
    outs = Compiler(cache, jobs=os.cpu_count()).compile_all(list(CONFIGS.values()), target_arch="sm_90a")
    paths = {}
    for key, o in zip(CONFIGS, outs, strict=True):
        assert o.ok, o.error
        path = tmp_path_factory.mktemp("cubins") / f"{o.config.variant_name}.cubin"
        path.write_bytes(o.cubin or b"")
        paths[key] = str(path)
    return paths


@pytest.mark.parametrize("key", sorted(CONFIGS))
@pytest.mark.parametrize("splits", [1, 3, 8])
def test_weight_streaming_kernel_verifies_at_tile_edges(compiled: dict[str, str], key: str, splits: int) -> None:
    import torch

    from worker import gpu_bench

    cfg = replace(CONFIGS[key], split_k=splits)
    entry = plan_entry(cfg, compiled[key])
    parts = cfg.epilogue.parts
    for m, n, k in SHAPES:
        spec = {"m": m, "n": n, "k": k, "dtype": cfg.dtype.value, "layout_a": "row", "layout_b": "col",
                "alpha": 1.0, "beta": 0.0}
        prob = gpu_bench.Problem(spec, {"bias": parts.bias, "residual": parts.residual,
                                        "activation": parts.activation.value})
        scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
        c = gpu_bench.Candidate(entry, prob, torch.cuda.get_device_properties(0).multi_processor_count,
                                torch.cuda.current_stream().cuda_stream, scratch.data_ptr())
        ok, reason, _ = gpu_bench.verify(c, prob)
        assert ok, f"{cfg.name} at {m}x{n}x{k}: {reason}"
        prepared = c.prepared({"m": m, "n": n, "k": k})
        assert prepared.cluster[0] == prepared.grid[0] <= splits and prepared.workspace_bytes == 0
