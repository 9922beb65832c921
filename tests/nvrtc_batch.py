"""One NVRTC compile of every variant the selected tests declare, over every core, behind the others.

A CUTLASS 3.x variant takes 80-110 s of one core on a CI host, and most compile tests need one or
two, so compiled test by test they kept one of the host's cores idle for ~12 minutes. Tests declare
what they compile with ``@pytest.mark.nvrtc(config, ..., arch="sm_90a")``. When collection ends the
union for the selected tests (``-k`` leaves the rest out) starts compiling in a background thread,
its NVRTC processes at the lowest CPU priority, while the other tests run first; the compile tests
run last and read their outcomes from the shared, real compile cache. On a two-core host the tests
took 343 s this way against 462 s compiling the batch first, the first compile test waiting 33 s
for what had taken 186."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections import defaultdict
from pathlib import Path

import pytest

from worker.kernels.compiler import CompileOutcome, Compiler
from worker.kernels.config import KernelConfig

DEFAULT_ARCH = "sm_90a"


class NvrtcBatch:
    def __init__(self, declared: list[tuple[KernelConfig, str]]) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="kiln-nvrtc-batch-"))
        self.compiler = Compiler(self.root / "cache", jobs=os.cpu_count() or 1, timeout=900, niceness=19)
        self._by_arch: dict[str, list[KernelConfig]] = defaultdict(list)
        for cfg, arch in dict.fromkeys(declared):
            self._by_arch[arch].append(cfg)
        self._outcomes: dict[tuple[KernelConfig, str], CompileOutcome] = {}
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._compile, name="nvrtc-batch", daemon=True)
        self._thread.start()

    def _compile(self) -> None:
        try:
            for arch, configs in self._by_arch.items():
                for cfg, out in zip(configs, self.compiler.compile_all(configs, target_arch=arch), strict=True):
                    self._outcomes[(cfg, arch)] = out
        except BaseException as exc:  # handed to the compile tests, which fail with it
            self._error = exc

    def remove_cache(self) -> None:
        """At the session's end; a batch still compiling (``-x`` stopped the session early) keeps its
        directory, since its compile processes would fail noisily without it."""
        if not self._thread.is_alive():
            shutil.rmtree(self.root, ignore_errors=True)

    def outcomes(self, *configs: KernelConfig, arch: str = DEFAULT_ARCH) -> list[CompileOutcome]:
        """The batch's outcomes for these configs (a test must declare each in its nvrtc marker),
        once the whole batch is done."""
        self._thread.join()
        if self._error is not None:
            raise RuntimeError("the NVRTC batch failed") from self._error
        missing = [c.name for c in configs if (c, arch) not in self._outcomes]
        assert not missing, f"not declared in the test's @pytest.mark.nvrtc: {missing}"
        return [self._outcomes[(c, arch)] for c in configs]


def compile_tests_last(items: list[pytest.Item]) -> None:
    """Reorder in place: the compile tests wait for the batch, so every other test runs before them."""
    items.sort(key=lambda item: item.get_closest_marker("nvrtc") is not None)


def declared(items: list[pytest.Item]) -> list[tuple[KernelConfig, str]]:
    return [(cfg, mark.kwargs.get("arch", DEFAULT_ARCH))
            for item in items for mark in item.iter_markers("nvrtc") for cfg in mark.args]
