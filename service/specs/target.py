"""Where a kernel will run: the arch it is compiled for and, optionally, the GPU model it is tuned on."""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

# Compute capability each arch's cubin runs on. A cubin runs only on its own major version,
# and sm_90a (wgmma, setmaxnreg) only on 9.0 exactly.
ARCHES: dict[str, tuple[int, int]] = {
    "sm_80": (8, 0),
    "sm_86": (8, 6),
    "sm_89": (8, 9),
    "sm_90": (9, 0),
    "sm_90a": (9, 0),
}

GpuName = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9 ._()\-]+$")]


def arches_for_capability(major: int, minor: int) -> list[str]:
    """The targets whose cubins a device of this compute capability can load."""
    out = []
    for arch, (maj, mnr) in ARCHES.items():
        if arch.endswith("a"):
            if (maj, mnr) == (major, minor):
                out.append(arch)
        elif maj == major and mnr <= minor:
            out.append(arch)
    return out


def normalize_gpu_name(name: str) -> str:
    """'NVIDIA H200 ' and 'nvidia  h200' are the same model for routing and cache keys."""
    return re.sub(r"\s+", " ", name).strip()


Arch = Literal["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"]


class Target(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    arch: Arch
    gpu: GpuName | None = Field(default=None, description="GPU model to tune on (e.g. 'NVIDIA H200'); any GPU of the arch when unset")

    @field_validator("gpu")
    @classmethod
    def _normalize_gpu(cls, value: str | None) -> str | None:
        return None if value is None else normalize_gpu_name(value)


assert set(get_args(Arch)) == set(ARCHES), "Arch literal and ARCHES table must list the same targets"
