"""Compile, on a CPU host, every cubin that `kiln bench gemm --limit N` (the full GEMM suite search)
builds on the H200, into $KILN_DATA_DIR's compile cache, so the device run times instead of compiling.

Usage: KILN_DATA_DIR=$PWD/.fleet-data python scripts/device/prefill_suite_search.py SUITE [LIMIT] [--count]
    [--only NAME ...]
(`--count`: print how many distinct cubins the search needs, and stop; `--only`: these shapes only.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.gemm_suite import suite_specs  # noqa: E402
from worker.kernels.compiler import CompileOutcome, Compiler  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402
from worker.kernels.hardware import hardware_for  # noqa: E402
from worker.selection import select_gemm  # noqa: E402

H200_SMS = 132


def suite_search_configs(suite: Path, limit: int, only: set[str] | None = None) -> list[KernelConfig]:
    """The distinct compiled configs of every suite shape's selection, in suite order."""
    hw = hardware_for("sm_90a", H200_SMS)
    wanted: dict[KernelConfig, None] = {}
    for name, spec in suite_specs(suite):
        if only and name not in only:
            continue
        for cfg in select_gemm(spec, "sm_90a", hw, limit).report.kept:
            wanted.setdefault(cfg.compiled, None)
    return list(wanted)


if __name__ == "__main__":
    argv = sys.argv[1:]
    only = set(argv[argv.index("--only") + 1:]) if "--only" in argv else None
    args = [a for a in (argv[:argv.index("--only")] if only else argv) if not a.startswith("--")]
    configs = suite_search_configs(Path(args[0]), int(args[1]) if len(args) > 1 else 16, only)
    print(f"{len(configs)} distinct cubins", flush=True)
    if "--count" not in sys.argv:
        cache = Path(os.environ["KILN_DATA_DIR"]) / "compile-cache"
        done = {"n": 0}

        def report(o: CompileOutcome) -> None:
            done["n"] += 1
            print(f"{done['n']}/{len(configs)} {'ok' if o.ok else 'FAILED'} {o.seconds:.0f}s {o.config.name}", flush=True)

        Compiler(cache, jobs=os.cpu_count()).compile_all(configs, target_arch="sm_90a", on_done=report)
