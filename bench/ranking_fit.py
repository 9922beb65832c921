"""How well the ranking model orders what the GPU measured (`python -m bench.ranking_fit`).

    python -m bench.ranking_fit [--results bench/results] [--suite ../shared/bench/suite.json]

Reads every stored GEMM tuning result (each candidate's measured time), rebuilds each timed
variant's KernelConfig from the shape's search space, and prints per shape the Spearman rank
correlation between `estimated_cost` and the measured time, and where the measured best sits in the
model's order, and the selection's coverage: the best measured time among the variants
`select_gemm --limit 16` would time over the best ever measured (below 1: the search can no longer
reach a kernel that once won). The model's constants (the TMA-epilogue and cluster factors, the stream-K fix-up
bandwidth) were fitted with it; no GPU needed.
"""

from __future__ import annotations

import argparse
import glob
import json
import statistics
from pathlib import Path

from service.specs import GemmSpec
from worker.kernels.config import KernelConfig
from worker.kernels.hardware import hardware_for
from worker.kernels.problem import GemmProblem
from worker.kernels.prune import estimated_cost
from worker.kernels.space import full_space
from worker.selection import expand_runtime_variants, select_gemm

SEARCH_LIMIT = 16


def measured_times(results: Path, names: set[str]) -> dict[str, dict[str, float]]:
    """shape → variant name → fastest time it was ever measured at, over every stored run."""
    out: dict[str, dict[str, float]] = {}
    for path in sorted(glob.glob(str(results / "gemm_*.json")) + glob.glob(str(results / "fleet_*.json"))):
        data = json.loads(Path(path).read_text())
        rows = data.get("shapes") or [s for run in data.get("runs", []) for s in run.get("shapes", [])]
        for pair in data.get("rows", []):  # `kiln bench pairs`: one row per timed variant
            shape = suite_shape(pair.get("shape") or "", names)
            if shape and pair.get("time_us"):
                times = out.setdefault(shape, {})
                times[pair["name"]] = min(pair["time_us"], times.get(pair["name"], float("inf")))
        for row in rows:
            if row.get("name") not in names:
                continue
            for cand in row.get("candidates", []):
                if cand.get("time_us"):
                    times = out.setdefault(row["name"], {})
                    times[cand["name"]] = min(cand["time_us"], times.get(cand["name"], float("inf")))
    return out


def suite_shape(label: str, names: set[str]) -> str | None:
    """The suite shape a pairs row timed: its label may carry the experiment and turn after the
    name (`bert-base.qkv.tall#1`)."""
    base = label.split("#")[0]
    while base not in names and "." in base:
        base = base.rsplit(".", 1)[0]
    return base if base in names else None


def ranks(values: list[float]) -> list[float]:
    """Ranks from 0, ties sharing their average rank (launch-time variants of one cubin cost the same)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    r = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start:end + 1]:
            r[i] = (start + end) / 2
        start = end + 1
    return r


def spearman(a: list[float], b: list[float]) -> float:
    """Pearson correlation of the (tie-averaged) ranks."""
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else 0.0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--results", type=Path, default=Path("bench/results"))
    p.add_argument("--suite", type=Path, default=Path("../shared/bench/suite.json"))
    args = p.parse_args()
    hw = hardware_for("sm_90a", 132)
    suite = {g["name"]: g for g in json.loads(args.suite.read_text())["gemm"]}
    measured = measured_times(args.results, set(suite))
    correlations, coverages = [], []
    print(f"{'shape':<22}{'timed':>6}{'spearman':>10}{'best at':>9}{'coverage':>10}")
    for name, g in suite.items():
        spec = GemmSpec(m=g["m"], n=g["n"], k=g["k"], epilogue=g.get("epilogue", "none"), dtype=g.get("dtype", "f16"))
        problem = GemmProblem.from_spec(spec)
        by_name: dict[str, KernelConfig] = {v.name: v for c in full_space(problem, "sm_90a")
                                            for v in expand_runtime_variants([c], problem, hw)}
        times = {n: t for n, t in measured.get(name, {}).items() if n in by_name}  # its own epilogue's kernels
        pairs = [(t, estimated_cost(by_name[n], problem.as_run_by(by_name[n]), hw)) for n, t in times.items()]
        if len(pairs) < 5:
            continue
        rho = spearman([t for t, _ in pairs], [c for _, c in pairs])
        correlations.append(rho)
        best = min(range(len(pairs)), key=lambda i: pairs[i][0])
        at = ranks([c for _, c in pairs])[best]
        selected = [times[v.name] for v in select_gemm(spec, "sm_90a", hw, SEARCH_LIMIT).variants if v.name in times]
        coverage = min(times.values()) / min(selected) if selected else 0.0
        coverages.append(coverage)
        print(f"{name:<22}{len(pairs):>6}{rho:>10.3f}{at:>9.0f}{coverage:>10.3f}")
    if correlations:
        print(f"mean Spearman over {len(correlations)} shapes: {statistics.mean(correlations):.3f}; "
              f"selection coverage (geomean): {statistics.geometric_mean(coverages):.3f}")


if __name__ == "__main__":
    main()
