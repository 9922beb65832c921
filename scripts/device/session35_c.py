"""Session 35, run C: which of the o_proj winner's behaviours outside the data path draw the power?

Runs A/B (`kiln bench power`, H100) had Kiln's compute-bound winners drawing 5-19% more watts than
nvjet on zeroed operands, at clocks within 2% and cycles at or under nvjet's: power burnt outside the
tensor cores' data path, which at the 700 W cap on random operands costs them 1-5% of clock. Here
o_proj's winner (256x128 cooperative under 1x2, L2 promotion 128, raster along M, swizzle 2) beside
one-change twins, each under `kiln bench power` on random and on zeroed operands:
  launch-time (the same cubin): TMA L2 promotion 0 and 256 (the bytes each L2 request widens to),
  raster along N, swizzle 8 (DRAM and L2 traffic);
  compiled: the epilogue storing accumulators straight from registers (no shared-memory staging, no
  TMA store), three mainloop stages instead of four (less shared memory in flight), and 128x128
  ping-pong (two consumer warpgroups on separate tiles taking turns, attn_out's winner cubin).

    python scripts/device/session35_c.py > scripts/device/session35_c_twins.json   # on the CPU host
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from worker.kernels.config import EpilogueSchedule, KernelConfig, Raster, Schedule  # noqa: E402

WINNERS = Path("bench/results/gemm_h100_20261206_session33_b_search.json")
SHAPE = "llama7b.o_proj"


def twins(winner: KernelConfig) -> list[KernelConfig]:
    return [replace(winner, l2_promotion=0), replace(winner, l2_promotion=256),
            replace(winner, raster=Raster.along_n), replace(winner, max_swizzle=8),
            replace(winner, epilogue_schedule=EpilogueSchedule.nosmem), replace(winner, stages=3),
            replace(winner, tile=(128, 128, 64), schedule=Schedule.pingpong)]


def twin_rows() -> list[dict]:
    row = next(r for r in json.loads(WINNERS.read_text())["shapes"] if r["name"] == SHAPE)
    return [{k: row[k] for k in ("name", "m", "n", "k", "dtype", "epilogue")} | {"winner": t.to_dict()}
            for t in twins(KernelConfig.from_dict(row["winner"]))]


if __name__ == "__main__":
    print(json.dumps({"shapes": twin_rows()}, indent=1))
