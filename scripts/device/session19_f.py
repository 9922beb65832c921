"""Session 19, run F: bert-base.ffn1's fusion cost on the swapped 128x192 ping-pong tile under both
2-CTA clusters (the search's pick is 1x2, run B measured 2x1): each kernel with its bias + GELU and
without an epilogue, every problem re-timed interleaved with the library, in two turns."""

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

WINNERS = Path("scripts/device/replay_session19.json")


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    row = next(r for r in json.loads(WINNERS.read_text())["shapes"] if r["name"] == "bert-base.ffn1")
    fused = [replace(KernelConfig.from_dict(row["winner"]), cluster=c) for c in ((1, 2), (2, 1))]
    spec = GemmSpec(m=4096, n=3072, k=768, epilogue=Epilogue.bias_gelu)
    return [("bert-base.ffn1", spec, fused),
            ("bert-base.ffn1.none", spec.model_copy(update={"epilogue": Epilogue.none}),
             [replace(c, epilogue=Epilogue.none) for c in fused])]


if __name__ == "__main__":
    run(problems(), Path(sys.argv[1]))
