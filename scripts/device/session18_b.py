"""Session 18, run B: does bert-base.ffn1's fusion cost (the bias + GELU epilogue's time over the
same kernel without one, +8.9% in run A with the fp16-pair GELU) shrink with a wider TMA-epilogue
subtile (64 columns: half the subtile barriers, twice the independent work per subtile), per-warp
TMA stores (no CTA-wide barrier per subtile) or four subtile stores in flight? Each variant with and
without the epilogue, every problem re-timed interleaved with the library, in two turns."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.common import device_provenance, save_result  # noqa: E402
from bench.gemm_pairs import time_twins  # noqa: E402
from service.specs import GemmSpec  # noqa: E402
from service.specs.epilogues import Epilogue  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("scripts/device/replay_session17.json")


def variants(winner: KernelConfig) -> list[KernelConfig]:
    return [winner, replace(winner, epilogue_tile_n=64), replace(winner, warp_stores=True),
            replace(winner, epilogue_store_stages=4)]


def ffn1_winner(result: Path = WINNERS) -> KernelConfig:
    """bert-base.ffn1's winner in a stored `kiln bench gemm` result (a search or a replay)."""
    row = next(r for r in json.loads(result.read_text())["shapes"] if r["name"] == "bert-base.ffn1")
    return KernelConfig.from_dict(row["winner"])


def problems(make: Callable[[KernelConfig], list[KernelConfig]] = variants, winner: KernelConfig | None = None
             ) -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """bert-base.ffn1 with its bias + GELU and without an epilogue, each under `make`'s variants of
    `winner` (default: session 17's)."""
    fused = winner or ffn1_winner()
    spec = GemmSpec(m=4096, n=3072, k=768, epilogue=fused.epilogue)  # the suite's bert-base.ffn1
    bare = replace(fused, epilogue=Epilogue.none)
    return [("bert-base.ffn1", spec, make(fused)),
            ("bert-base.ffn1.none", spec.model_copy(update={"epilogue": bare.epilogue}), make(bare))]


def run(todo: list[tuple[str, GemmSpec, list[KernelConfig]]], out: Path) -> None:
    """Compile, then two turns over every problem (each verified, timed, re-timed interleaved)."""
    from worker.gpu_step import GpuTuningStep

    step = GpuTuningStep(0)
    rows: list[dict[str, Any]] = []
    try:
        step.compiler.compile_all([c.compiled for _, _, configs in todo for c in configs], target_arch="sm_90a")
        for turn in (1, 2):
            for label, spec, configs in todo:
                time_twins(step, f"{label}#{turn}", spec, configs, rows)
    finally:
        step.close()
    payload = {**device_provenance(step.device()), "benchmark": "gemm_pairs", "rows": rows}
    print(json.dumps({"saved": str(save_result(payload, "gemm_pairs", step.device().gpu_name, out))}))


def stored_winners(result: Path, names: tuple[str, ...]) -> list[tuple[str, GemmSpec, KernelConfig]]:
    """The named shapes of a stored suite result: each one's spec and winning config, in `names` order."""
    rows = {r["name"]: r for r in json.loads(result.read_text())["shapes"]}
    return [(name, GemmSpec(m=rows[name]["m"], n=rows[name]["n"], k=rows[name]["k"], epilogue=rows[name]["epilogue"],
                            dtype=rows[name].get("dtype", "f16")),
             KernelConfig.from_dict(rows[name]["winner"])) for name in names]


def stored_twins(result: Path, names: tuple[str, ...], make: Callable[[KernelConfig], list[KernelConfig]]
                 ) -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """A pairs script's problems: each named shape of a stored suite result with `make`'s twins of its winner."""
    return [(name, spec, make(winner)) for name, spec, winner in stored_winners(result, names)]


def main(todo: list[tuple[str, GemmSpec, list[KernelConfig]]]) -> None:
    """A pairs script's command line: `--list` prints each problem's configs, a path runs them."""
    if sys.argv[1:] == ["--list"]:
        for name, _, configs in todo:
            print(name, *(c.variant_name for c in configs), sep="\n  ")
    else:
        run(todo, Path(sys.argv[1]))


if __name__ == "__main__":
    main(problems())
