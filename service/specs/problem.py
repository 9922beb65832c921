"""The request envelope: a batch of problems and the target they are tuned for."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from service.specs.conv2d import Conv2dSpec
from service.specs.gemm import GemmSpec
from service.specs.target import Target

# Discriminated on "op" so a bad field is reported under the right kind of problem, and so
# subgraph problems ({"op": "graph", ...}) can join the union later without a new endpoint.
Problem = Annotated[GemmSpec | Conv2dSpec, Field(discriminator="op")]


class TuneRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    problems: list[Problem] = Field(min_length=1)
    target: Target | None = Field(default=None, description="Defaults to the server's KILN_DEFAULT_ARCH, any GPU")
    priority: int = Field(default=0, ge=-100, le=100, description="Higher is leased first")
