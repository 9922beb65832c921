"""Session 20, run F: per-warp TMA stores on a swapped kernel (column-major D, templates/
warp_store_epilogue.cuh.j2) against bert-base.ffn1's fusion cost: session 20's search winner (the
swapped 128x192 2x1 ping-pong kernel) with CUTLASS's epilogue and with per-warp stores, each with
its bias + GELU and without an epilogue, every problem re-timed interleaved with the library, in two
turns."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session18_b import run  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from service.specs.epilogues import Epilogue  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

SEARCH = Path("bench/results/gemm_h200_20261203_session20_d_search.json")


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    row = next(r for r in json.loads(SEARCH.read_text())["shapes"] if r["name"] == "bert-base.ffn1")
    winner = KernelConfig.from_dict(row["winner"])
    fused = [winner, replace(winner, warp_stores=True)]
    spec = GemmSpec(m=4096, n=3072, k=768, epilogue=Epilogue.bias_gelu)
    return [("bert-base.ffn1", spec, fused),
            ("bert-base.ffn1.none", spec.model_copy(update={"epilogue": Epilogue.none}),
             [replace(c, epilogue=Epilogue.none) for c in fused])]


if __name__ == "__main__":
    run(problems(), Path(sys.argv[1]))
