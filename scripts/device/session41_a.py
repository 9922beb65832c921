"""Session 41, run A (pairs part): is CUTLASS's per-k-block consumer bookkeeping the compute-bound
winners' 1.6-2.0% of extra cycles against nvjet?

Session 33 run D's SASS page had the winner's consumer loop executing ~17 per-thread integer
instructions per warp and k-block where nvjet executes ~7, with its bookkeeping on the uniform
datapath: CUTLASS's stage index is a runtime value, so every k-block recomputes barrier addresses,
the pipeline state, the wgmma descriptors' stage offset (then R2UR) and the release barrier's
cluster address. KernelConfig.lean_consumer unrolls the loop over the stages
(templates/lean_consumer_mainloop.cuh.j2), so each copy of the body has its stage as a constant.
Each compute-bound winner of session 33 run B (H100) beside its lean twin and cuBLAS, two
interleaved turns, each verified first (scripts/device/session18_b.py runs them)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h100_20261206_session33_b_search.json")
# The compute-bound shapes below 1.0 or near it, one of each kernel schedule the winners use.
SHAPES = ("llama7b.o_proj", "llama7b.down", "bert-base.attn_out", "square.1024", "llama7b.qkv",
          "bert-large.attn_out", "bert-base.ffn2")


def lean_twin(winner: KernelConfig) -> list[KernelConfig]:
    return [winner, replace(winner, lean_consumer=True)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return stored_twins(WINNERS, SHAPES, lean_twin)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
