"""`kiln compile`: show the pruned search space for a problem and compile it with NVRTC (no GPU needed)."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from service.cli.problems import add_problem_flags, problems_from_args
from service.specs import Conv2dSpec, GemmSpec
from service.specs.target import ARCHES

console = Console()


def add(sub: argparse._SubParsersAction) -> None:
    c = sub.add_parser("compile", help="enumerate, prune and NVRTC-compile the variants for a GEMM or Conv2d (CPU only)")
    add_problem_flags(c)
    c.add_argument("--limit", type=int, default=12, help="compile the best N after pruning")
    c.add_argument("--out", type=Path, default=None, help="write <variant>.cubin and index.json here")
    c.add_argument("--explain", action="store_true", help="print what each pruning rule removed, and stop")
    c.add_argument("--jobs", type=int, default=None, help="compile processes (default: all cores)")
    c.add_argument("--timeout", type=float, default=600.0, help="seconds per variant")
    c.set_defaults(func=compile_command)


def compile_command(args: argparse.Namespace) -> int:
    """Every problem's pruned space (and, with --explain, what each rule removed), then one parallel
    compile of the union: the configs a worker's tuning step would compile for the same problems,
    so running this on a CPU host fills the compile cache a GPU host with the same toolchain reuses."""
    from worker.kernels.compiler import Compiler
    from worker.kernels.hardware import hardware_for
    from worker.runtime.launch_meta import launch_meta
    from worker.selection import Selection, select_conv, select_gemm

    problems, target = problems_from_args(args)
    if not problems:
        console.print("[red]error[/]: kiln compile takes a --gemm or --conv problem")
        return 2
    arch = (target or {}).get("arch") or "sm_90a"
    if arch not in ARCHES:
        console.print(f"[red]error[/]: unknown arch {arch}")
        return 2
    hw = hardware_for(arch)
    selections: list[Selection] = []
    for problem in problems:
        if problem["op"] == "conv2d":
            selections.append(select_conv(Conv2dSpec.model_validate(problem), arch, hw, args.limit))
        else:
            selections.append(select_gemm(GemmSpec.model_validate(problem), arch, hw, args.limit))
    kept = []
    for chosen in selections:
        report = chosen.report
        if args.explain or len(selections) == 1:
            table = Table("rule", "removed", "example", title=f"{chosen.title} on {arch}")
            for rule, n in report.removed.items():
                table.add_row(rule, str(n), report.examples.get(rule, ""))
            console.print(table)
        console.print(f"{chosen.title}: space {report.total} → {report.survivors} after pruning → "
                      f"compiling the best {len(report.kept)}")
        for cfg in report.kept:
            console.print(f"  {cfg.name}", soft_wrap=True)  # a name is an identifier: never wrapped
        kept += [cfg for cfg in report.kept if cfg not in kept]
    if args.explain:
        return 0
    data_dir = Path(os.environ.get("KILN_DATA_DIR", ".kiln"))
    compiler = Compiler(data_dir / "compile-cache", jobs=args.jobs, timeout=args.timeout)
    rows = []
    t0 = time.monotonic()
    with Progress(TextColumn("compiling"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[last]}"),
                  TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("compile", total=len(kept), last="")
        outcomes = compiler.compile_all(kept, target_arch=arch,
                                        on_done=lambda o: bar.update(task, advance=1, last=o.config.variant_name[:60]))
    failed = 0
    for o in outcomes:
        status = "cached" if o.cached else ("ok" if o.ok else "FAILED")
        failed += not o.ok
        rows.append({"name": o.config.name, "family": o.config.family.value, "ok": o.ok, "cached": o.cached,
                     "seconds": round(o.seconds, 2), "bytes": len(o.cubin or b""), "error": o.error})
        console.print(f"{status:>7} {o.seconds:6.1f}s {o.config.name}" + (f"  [red]{o.error}[/]" if o.error else ""))
        if args.out and o.ok and o.cubin:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"{o.config.variant_name}.cubin").write_bytes(o.cubin)
    if args.out:
        index = [{**r, "config": o.config.to_dict(), "launch": launch_meta(o.config)}
                 for r, o in zip(rows, outcomes, strict=True) if o.ok]
        prune = [{"problem": c.title, **c.report.as_dict()} for c in selections]
        (args.out / "index.json").write_text(json.dumps({"prune": prune, "variants": index}, indent=1))
    console.print(f"{len(outcomes) - failed} compiled, {failed} failed, {time.monotonic() - t0:.1f}s wall")
    return 1 if failed else 0
