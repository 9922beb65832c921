"""Problems from CLI flags or a JSON/YAML file, validated by the same models as the API."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter

from service.specs import Problem, Target

_MNK = re.compile(r"^(\d+)x(\d+)x(\d+)$")
_CONV = re.compile(r"^(\d+(?:[x:]\d+){6})$")


def add_problem_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gemm", action="append", default=[], metavar="MxNxK", help="a GEMM problem (repeatable)")
    p.add_argument("--conv", action="append", default=[], metavar="NxHxWxCxKxRxS", help="a Conv2d problem (repeatable)")
    p.add_argument("--stride", type=int, default=1, help="--conv: stride (both dimensions)")
    p.add_argument("--padding", type=int, default=0, help="--conv: zero padding (both dimensions)")
    p.add_argument("--dilation", type=int, default=1, help="--conv: dilation (both dimensions)")
    p.add_argument("--layout", default="NHWC", choices=["NHWC", "NCHW"],
                   help="--conv: the activations' layout (NCHW is tuned as NHWC; the result says how to transform)")
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    p.add_argument("--epilogue", default="none")
    p.add_argument("--arch", default=None, help="target arch (default: the server's)")
    p.add_argument("--gpu-name", default=None, help="tune on this GPU model only")
    p.add_argument("--file", type=Path, help="JSON or YAML: a list of problems or {problems: [...], target: {...}}")


def problems_from_args(args: argparse.Namespace) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Returns validated problems as JSON dicts and the target (None: server default)."""
    raw: list[dict[str, Any]] = []
    target: dict[str, Any] | None = None
    for text in args.gemm:
        m = _MNK.match(text)
        if not m:
            raise ValueError(f"--gemm {text!r}: expected MxNxK, e.g. 4096x768x3072")
        raw.append({"op": "gemm", "m": int(m[1]), "n": int(m[2]), "k": int(m[3]), "batch": args.batch,
                    "dtype": args.dtype, "epilogue": args.epilogue})
    for text in args.conv:
        if not _CONV.match(text):
            raise ValueError(f"--conv {text!r}: expected NxHxWxCxKxRxS, e.g. 32x56x56x64x64x3x3")
        n, h, w, c, k, r, s = (int(v) for v in re.split(r"[x:]", text))
        raw.append({"op": "conv2d", "n": n, "h": h, "w": w, "c": c, "k": k, "r": r, "s": s, "stride": args.stride,
                    "padding": args.padding, "dilation": args.dilation, "layout": args.layout, "dtype": args.dtype,
                    "epilogue": args.epilogue})
    if args.file:
        data = yaml.safe_load(args.file.read_text()) if args.file.suffix in (".yaml", ".yml") else json.loads(args.file.read_text())
        if isinstance(data, dict):
            target = data.get("target")
            data = data.get("problems", [])
        raw.extend(data)
    if args.arch or args.gpu_name:
        target = {"arch": args.arch or (target or {}).get("arch"), **({"gpu": args.gpu_name} if args.gpu_name else {})}
    if not raw:
        raise ValueError("no problems: give --gemm, --conv or --file")
    adapter = TypeAdapter(list[Problem])
    problems = [p.model_dump(mode="json") for p in adapter.validate_python(raw)]
    if target is not None and target.get("arch"):
        target = Target.model_validate(target).model_dump(mode="json", exclude_none=True)
    return problems, target
