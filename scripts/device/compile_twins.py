"""Compile on the CPU host what a device run will ask for, into the local compile cache, so that
scripts/device/prepare_carry.sh carries it and the GPU host compiles nothing.

    KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python scripts/device/compile_twins.py \\
        scripts/device/session28_b_profile.json session28_b

Arguments: result-like JSON files ({"shapes": [{..., "winner": KernelConfig dict}]}, what
`kiln bench profile --result` reads) and pairs-script module names under scripts/device (their
`problems()`' configs). Prints one line per cubin: ok or FAIL, its name, seconds since the start."""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from worker.kernels.compiler import Compiler  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402


def wanted(sources: list[str]) -> dict[str, KernelConfig]:
    """Every distinct cubin (compiled-in fields only) the sources name, by name."""
    configs: dict[str, KernelConfig] = {}
    for source in sources:
        if source.endswith(".json"):
            found = [KernelConfig.from_dict(r["winner"]) for r in json.loads(Path(source).read_text())["shapes"]]
        else:
            found = [c for _, _, cs in importlib.import_module(source).problems() for c in cs]
        configs.update({c.compiled.name: c.compiled for c in found})
    return configs


def main() -> None:
    configs = wanted(sys.argv[1:])
    cache = Path(os.environ.get("KILN_DATA_DIR", ".kiln-data")) / "compile-cache"
    start = time.time()
    for o in Compiler(cache, jobs=os.cpu_count() or 1).compile_all(list(configs.values()), target_arch="sm_90a"):
        print("ok" if o.ok else "FAIL", o.config.name, round(time.time() - start, 1), (o.error or "")[:300], flush=True)


if __name__ == "__main__":  # the compiler's worker processes re-import this file
    main()
