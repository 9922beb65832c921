"""Canonical form and spec key: equal problems give equal keys whatever the JSON field order or spelling."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from service.specs.target import Target
from service.versions import Toolchain, toolchain


def canonical_dict(problem: BaseModel) -> dict[str, Any]:
    """Every field, defaults included, in JSON types: `stride: 2` and `stride: [2, 2]` both become [2, 2]."""
    return problem.model_dump(mode="json")


def canonical_json(obj: dict[str, Any]) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def spec_key(problem: BaseModel, target: Target, chain: Toolchain | None = None) -> str:
    payload = {
        "problem": canonical_dict(problem),
        "target": target.model_dump(mode="json"),
        "toolchain": (chain or toolchain()).as_dict(),
    }
    return hashlib.sha256(canonical_json(payload).encode()).hexdigest()
