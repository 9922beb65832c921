"""`kiln bench sass-mix` (`python -m bench.sass_mix`): where two kernels' instructions differ.

    ncu --import prof.ncu-rep --page source --csv --print-source sass > sass.csv
    kiln bench sass-mix sass.csv[.xz] [--diff 0 1] [--top 20]

Event timing says a kernel trails the library's; a profile of both says where. Nsight Compute's
source page lists every SASS instruction of every profiled kernel with its executed count and
its warp-stall samples. This folds that per opcode (predicates and modifiers dropped: `@!P1 BRA`
and `HGMMA.64x128x16.F32` count as BRA and HGMMA), per kernel, and with `--diff A B` prints
kernel A's count minus kernel B's, largest first: in session 12 that put Kiln's store-bound
epilogue beside cuBLAS's nvjet kernel of the same tile (one FMUL and one FFMA per output element
for alpha and a zero beta, two CTA-wide barriers per subtile where nvjet's warps each store their
own). Kernels are numbered in file order, as ncu profiled them.
"""

from __future__ import annotations

import argparse
import csv
import io
import lzma
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PREDICATE = re.compile(r"^@!?U?P[T0-9]+\s+")


@dataclass
class KernelMix:
    name: str
    executed: Counter[str] = field(default_factory=Counter)  # warp-level instructions executed, per opcode
    stalls: Counter[str] = field(default_factory=Counter)  # warp-stall samples at instructions of that opcode

    @property
    def total(self) -> int:
        return sum(self.executed.values())


def opcode(sass: str) -> str:
    """`@!P1 BRA 0x7f…` → BRA; `HGMMA.64x128x16.F32 R24, …` → HGMMA."""
    return PREDICATE.sub("", sass.strip()).split(" ", 1)[0].split(".", 1)[0]


def _count(text: str) -> int:
    return int(text.replace(",", "") or 0)


def read_mixes(path: Path) -> list[KernelMix]:
    """Every kernel of an ncu source-page CSV (`"Kernel Name","…"` line, then a header and one row
    per instruction), in file order. `.xz` files are read as they are stored in bench/results."""
    raw = lzma.decompress(path.read_bytes()).decode() if path.suffix == ".xz" else path.read_text()
    sections: list[tuple[str, list[str]]] = []
    for line in raw.splitlines():
        if line.startswith('"Kernel Name"'):
            sections.append((next(csv.reader([line]))[1], []))
        elif sections:
            sections[-1][1].append(line)
    mixes = []
    for name, lines in sections:
        mix = KernelMix(name)
        for row in csv.DictReader(io.StringIO("\n".join(lines))):
            op = opcode(row["Source"])
            mix.executed[op] += _count(row.get("Instructions Executed") or "")
            mix.stalls[op] += _count(row.get("Warp Stall Sampling (All Samples)") or "")
        mixes.append(mix)
    return mixes


def difference(a: KernelMix, b: KernelMix) -> list[tuple[str, int]]:
    """a's executed count minus b's, per opcode, largest excess first."""
    ops = set(a.executed) | set(b.executed)
    return sorted(((op, a.executed[op] - b.executed[op]) for op in ops), key=lambda kv: (-kv[1], kv[0]))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", type=Path, help="ncu --page source --csv --print-source sass output (.csv or .csv.xz)")
    p.add_argument("--diff", nargs=2, type=int, action="append", default=[], metavar=("A", "B"))
    p.add_argument("--top", type=int, default=20)
    args = p.parse_args()
    mixes = read_mixes(args.csv)
    for i, mix in enumerate(mixes):
        print(f"[{i}] {mix.name}: {mix.total:,} warp instructions, {sum(mix.stalls.values())} stall samples")
        print("    executed: " + ", ".join(f"{op} {n:,}" for op, n in mix.executed.most_common(args.top)))
        print("    stalled at: " + ", ".join(f"{op} {n}" for op, n in mix.stalls.most_common(args.top // 2)))
    for a, b in args.diff:
        diff = difference(mixes[a], mixes[b])
        print(f"[{a}] - [{b}]: {mixes[a].total - mixes[b].total:+,} warp instructions")
        print("    more: " + ", ".join(f"{op} {n:+,}" for op, n in diff[: args.top] if n > 0))
        print("    fewer: " + ", ".join(f"{op} {n:+,}" for op, n in reversed(diff[-args.top // 2:]) if n < 0))


if __name__ == "__main__":
    main()
