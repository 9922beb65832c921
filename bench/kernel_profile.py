"""`python -m bench.kernel_profile`: one launch of a stored winner and one of the library, for ncu.

    ncu --nvtx --nvtx-include kiln_profile/ --clock-control none --section SpeedOfLight … \\
        python -m bench.kernel_profile --result bench/results/conv2d_….json --only r50.res2.1x1a

Event timing says *that* Kiln trails cuDNN/cuBLAS on a problem, not *why*. This replays, for each
named problem of a stored suite result, the winning kernel (compiled from its recorded config) and
the library's own call on the same full-size operands, each warmed up first and then launched
exactly once inside the NVTX range `kiln_profile`, so a profiler run with
`--nvtx --nvtx-include kiln_profile/` sees two kernels per problem (three for a GEMM: the weight read below; plus any the library adds: a layout conversion, a split-K reduction),
and nothing of the warm-up, verification or cuDNN's algorithm search. A device-to-device copy of
the problem's input and output bytes runs in the same window: the memory roofline a streaming
kernel of that size can reach; for a GEMM, a reduction over its weight runs there too, a kernel
Nsight Compute does see: the DRAM share a plain read of the weight reaches beside the GEMMs.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

from service.specs import Conv2dSpec, GemmSpec
from worker.kernels.compiler import Compiler
from worker.kernels.config import KernelConfig
from worker.runtime.launch_meta import launch_meta
from worker.runtime.torch_conv import KilnConv2d
from worker.runtime.torch_gemm import TORCH_DTYPE, KilnGemm


def stored_rows(results: list[Path], only: list[str] | None) -> list[dict[str, Any]]:
    """The named problems' rows from stored suite results (conv layers or GEMM shapes), in file order."""
    rows: list[dict[str, Any]] = []
    for path in results:
        data = json.loads(path.read_text())
        rows += [row for row in data.get("layers") or data.get("shapes") or [] if not only or row["name"] in only]
    return rows


def compile_winners(rows: list[dict[str, Any]]) -> dict[str, bytes]:
    """Every winner's cubin by config name, compiled in one parallel batch (or from the cache)."""
    cache = Path(os.environ.get("KILN_DATA_DIR", ".kiln-data")) / "compile-cache"
    configs = {KernelConfig.from_dict(r["winner"]) for r in rows}
    cubins: dict[str, bytes] = {}
    for o in Compiler(cache, jobs=os.cpu_count() or 1).compile_all(
        sorted(configs, key=lambda c: c.name), target_arch="sm_90a"
    ):
        if not o.ok:
            raise RuntimeError(f"{o.config.name}: {o.error}")
        cubins[o.config.compiled.name] = o.cubin or b""
    return cubins


def conv_launchers(row: dict[str, Any], cubins: dict[str, bytes]) -> dict[str, Any]:
    """The winner through the client helper and cuDNN (channels_last, benchmark mode) on one input."""
    spec = Conv2dSpec.model_validate(row["spec"])
    cfg = KernelConfig.from_dict(row["winner"])
    meta = launch_meta(cfg, conv_as_gemm=not cfg.is_conv)
    kiln = KilnConv2d(cubins[cfg.compiled.name], meta, spec.model_dump(mode="json"))
    x = torch.randn(spec.n, spec.c, spec.h, spec.w, device="cuda", dtype=torch.half).to(
        memory_format=torch.channels_last
    )
    w = (torch.randn(spec.k, spec.c, spec.r, spec.s, device="cuda", dtype=torch.half) * 0.1).to(
        memory_format=torch.channels_last
    )
    b = torch.randn(spec.k, device="cuda", dtype=torch.half)
    parts = spec.epilogue.parts
    bias = b if parts.bias else None
    y = kiln(x, w, bias)
    src = torch.empty(x.numel() + y.numel(), device="cuda", dtype=torch.half)
    dst = torch.empty_like(src)
    return {
        "kiln": lambda: kiln(x, w, bias),
        "library": lambda: F.conv2d(x, w, None, spec.stride, spec.padding, spec.dilation),
        "copy_in_plus_out_bytes": lambda: dst.copy_(src),
    }


def gemm_launchers(row: dict[str, Any], cubins: dict[str, bytes]) -> dict[str, Any]:
    """The winner through KilnGemm and cuBLAS (F.linear alone: the GEMM's own kernel)."""
    spec = GemmSpec(
        m=row["m"], n=row["n"], k=row["k"], dtype=row.get("dtype", "f16"), epilogue=row["epilogue"]
    )
    cfg = KernelConfig.from_dict(row["winner"])
    kiln = KilnGemm(cubins[cfg.compiled.name], launch_meta(cfg), spec.model_dump(mode="json"))
    dt = TORCH_DTYPE[spec.dtype.value]
    x = torch.randn(spec.m, spec.k, device="cuda", dtype=dt)
    w = torch.randn(spec.n, spec.k, device="cuda", dtype=dt) * 0.1
    b = torch.randn(spec.n, device="cuda", dtype=dt)
    bias = b if spec.epilogue.parts.bias else None
    y = kiln(x, w, bias)
    src = torch.empty(x.numel() + w.numel() + y.numel(), device="cuda", dtype=dt)
    dst = torch.empty_like(src)
    return {
        "kiln": lambda: kiln(x, w, bias),
        "library": lambda: F.linear(x, w),
        "copy_in_plus_out_bytes": lambda: dst.copy_(src),
        # A reduction kernel that reads W once: the DRAM share a plain read of the weight reaches in
        # the same profile (the copy above is a memcpy, which Nsight Compute does not profile).
        "weight_read": lambda: torch.sum(w, dtype=torch.float32),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--result", type=Path, action="append", required=True, help="a conv2d or gemm suite result JSON"
    )
    p.add_argument("--only", nargs="*", default=None)
    args = p.parse_args()
    torch.backends.cudnn.benchmark = True
    rows = stored_rows(args.result, args.only)
    cubins = compile_winners(rows)
    order: list[str] = []
    for row in rows:
        make = conv_launchers if "spec" in row else gemm_launchers  # conv rows carry their spec
        launch = make(row, cubins)
        for _ in range(3):  # warm-up: cuDNN's algorithm search, params built (each launch is slow under ncu)
            for fn in launch.values():
                fn()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("kiln_profile")
        for fn in launch.values():
            fn()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        order.append(row["name"])
        print(json.dumps({"profiled": row["name"], "kernels_in_order": list(launch)}), flush=True)
    print(json.dumps({"order": order}))


if __name__ == "__main__":
    main()
