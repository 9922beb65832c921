"""One NVRTC compile of every variant the selected tests declare, over every core.

A CUTLASS 3.x variant takes 80-110 s of one core on a CI host, and most compile tests need one or
two, so compiled test by test they kept one of the host's cores idle for ~12 minutes. Tests declare
what they compile with ``@pytest.mark.nvrtc(config, ..., arch="sm_90a")``; the session's first such
test compiles the union for the tests that were selected (``-k`` leaves the rest out), and each test
reads its own outcomes from the shared, real compile cache."""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import pytest

from worker.kernels.compiler import CompileOutcome, Compiler
from worker.kernels.config import KernelConfig

DEFAULT_ARCH = "sm_90a"


class NvrtcBatch:
    def __init__(self, cache: Path, declared: list[tuple[KernelConfig, str]]) -> None:
        self.compiler = Compiler(cache, jobs=os.cpu_count() or 1, timeout=900)
        by_arch: dict[str, list[KernelConfig]] = defaultdict(list)
        for cfg, arch in dict.fromkeys(declared):
            by_arch[arch].append(cfg)
        self._outcomes: dict[tuple[KernelConfig, str], CompileOutcome] = {}
        for arch, configs in by_arch.items():
            for cfg, out in zip(configs, self.compiler.compile_all(configs, target_arch=arch), strict=True):
                self._outcomes[(cfg, arch)] = out

    def outcomes(self, *configs: KernelConfig, arch: str = DEFAULT_ARCH) -> list[CompileOutcome]:
        """The batch's outcomes for these configs (a test must declare each in its nvrtc marker)."""
        missing = [c.name for c in configs if (c, arch) not in self._outcomes]
        assert not missing, f"not declared in the test's @pytest.mark.nvrtc: {missing}"
        return [self._outcomes[(c, arch)] for c in configs]


def declared(items: list[pytest.Item]) -> list[tuple[KernelConfig, str]]:
    return [(cfg, mark.kwargs.get("arch", DEFAULT_ARCH))
            for item in items for mark in item.iter_markers("nvrtc") for cfg in mark.args]
