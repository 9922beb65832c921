"""Session 25, run B: where the compute-bound and one-round gaps sit. Run A ruled out the wgmma
issue order; this times four of run B's (session 24) winners beside the library over a sweep of K
and, for llama7b.o_proj's 256x128 tile, of N (1, 2 and 4 rounds of tiles). A straight line in K per
grid splits each kernel's time into a fixed part and a per-K rate; the rounds say whether the fixed
part is paid per launch or per tile. Two interleaved turns, each problem verified first."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session24_b_search.json")
# shape -> (N values, K values); M stays the suite's
SWEEPS = {
    "llama7b.o_proj": ((2048, 4096, 8192), (1024, 2048, 4096, 8192)),
    "bert-large.ffn2": ((1024,), (1024, 2048, 4096, 8192)),
    "bert-base.attn_out": ((768,), (384, 768, 1536, 3072)),
    "square.1024": ((1024,), (512, 1024, 2048, 4096)),
}


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    todo = []
    for name, spec, winner in stored_winners(WINNERS, tuple(SWEEPS)):
        ns, ks = SWEEPS[name]
        for n in ns:
            for k in ks:
                todo.append((f"{name}.n{n}.k{k}", spec.model_copy(update={"n": n, "k": k}), [winner]))
    return todo


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
