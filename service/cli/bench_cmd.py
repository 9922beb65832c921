"""`kiln bench gemm|pairs|fit|profile|chain|conv2d|compile|load|fleet|overhead|floor|tile-floor|…`: the benchmarks under bench/, with their own flags."""

from __future__ import annotations

import argparse
import importlib
import sys

MODULES = {"gemm": "bench.gemm_suite", "conv2d": "bench.conv_suite", "compile": "bench.compile_bench",
           "load": "bench.load", "fleet": "bench.fleet", "overhead": "bench.launch_overhead",
           "pairs": "bench.gemm_pairs", "conv-pairs": "bench.conv_pairs", "fit": "bench.ranking_fit", "profile": "bench.kernel_profile",
           "chain": "bench.launch_chain", "sass-mix": "bench.sass_mix", "floor": "bench.stream_floor", "tile-floor": "bench.tile_order_floor", "intake-floor": "bench.intake_floor", "power": "bench.power_draw", "turns": "bench.turn_profile",
           "phases": "bench.phase_clock", "ncu-digest": "bench.ncu_digest"}


def add(sub: argparse._SubParsersAction) -> None:
    b = sub.add_parser("bench", help="run a benchmark (gemm needs a GPU); `kiln bench gemm --help` for its flags")
    b.add_argument("which", choices=sorted(MODULES))
    b.add_argument("args", nargs=argparse.REMAINDER)
    b.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(MODULES[args.which])
    sys.argv = [f"kiln bench {args.which}", *args.args]
    module.main()
    return 0
