"""Compile many variants: cache first, then a process pool sized to the cores, a timeout each.

NVRTC cannot be interrupted inside a process, so every compile runs in a child process that is
killed when it overruns. A failure is recorded with its NVRTC log and is not retried: the same
source and options would fail the same way.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.versions import toolchain
from worker.kernels import nvrtc
from worker.kernels.compile_cache import CompileCache, cache_key
from worker.kernels.config import Family, KernelConfig
from worker.kernels.overlay import overlay_digest
from worker.kernels.render import render

ARCH_OF_FAMILY = {Family.sm90_tma: "sm_90a"}


@dataclass
class CompileOutcome:
    config: KernelConfig
    source_sha256: str
    ok: bool
    cubin: bytes | None = None
    log: str = ""
    error: str | None = None
    seconds: float = 0.0
    cached: bool = False
    arch: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def compile_arch(cfg: KernelConfig, target_arch: str) -> str:
    """sm90_tma kernels need sm_90a; 2.x kernels are built for the target arch itself."""
    return ARCH_OF_FAMILY.get(cfg.family, target_arch)


def _child(source: str, arch: str, options: list[str], conn: Any) -> None:
    t = time.perf_counter()
    try:
        cubin, log = nvrtc.compile(source, arch=arch, options=options)
        conn.send(("ok", cubin, log, time.perf_counter() - t))
    except nvrtc.CompileError as exc:
        conn.send(("error", str(exc), exc.log, time.perf_counter() - t))
    except Exception as exc:  # anything else in the child is a failed compile, with its message
        conn.send(("error", f"{type(exc).__name__}: {exc}", "", time.perf_counter() - t))
    finally:
        conn.close()


@dataclass
class _Running:
    index: int
    proc: Any
    conn: Any
    started: float


class Compiler:
    def __init__(self, cache_dir: Path, *, jobs: int | None = None, timeout: float = 300.0) -> None:
        self.cache = CompileCache(cache_dir)
        self.jobs = jobs or os.cpu_count() or 1
        self.timeout = timeout
        self._ctx = mp.get_context("spawn")

    def _key(self, source: str, arch: str, options: list[str]) -> str:
        tc = toolchain()
        cutlass_include = nvrtc.header_roots()[0] / "include"
        return cache_key(source, arch=arch, options=options, nvrtc=tc.nvrtc, cutlass=tc.cutlass,
                         overlay=_overlay_digest(str(cutlass_include)))

    def compile_all(
        self, configs: Iterable[KernelConfig], *, target_arch: str,
        on_done: Callable[[CompileOutcome], None] | None = None,
    ) -> list[CompileOutcome]:
        import hashlib

        todo: list[tuple[KernelConfig, str, str, list[str], str]] = []
        outcomes: list[CompileOutcome | None] = []
        for cfg in configs:
            arch = compile_arch(cfg, target_arch)
            source = render(cfg)
            options = nvrtc.base_options(arch)
            key = self._key(source, arch, options)
            src_sha = hashlib.sha256(source.encode()).hexdigest()
            hit = self.cache.get(key)
            if hit is not None:
                out = CompileOutcome(cfg, src_sha, True, hit.cubin, hit.log, None, hit.compile_seconds, True, arch)
                outcomes.append(out)
                if on_done:
                    on_done(out)
            else:
                outcomes.append(None)
                todo.append((cfg, source, arch, options, key))
        pending = [i for i, o in enumerate(outcomes) if o is None]
        queue = list(zip(pending, todo, strict=True))
        running: list[_Running] = []
        while queue or running:
            while queue and len(running) < self.jobs:
                index, (cfg, source, arch, options, key) = queue.pop(0)
                parent, child = self._ctx.Pipe(duplex=False)
                proc = self._ctx.Process(target=_child, args=(source, arch, options, child), daemon=True)
                proc.start()
                child.close()
                running.append(_Running(index, proc, parent, time.monotonic()))
            time.sleep(0.05)
            for r in list(running):
                cfg, source, arch, options, key = todo[pending.index(r.index)]
                src_sha = hashlib.sha256(source.encode()).hexdigest()
                out: CompileOutcome | None = None
                if r.conn.poll():
                    try:
                        status, a, log, seconds = r.conn.recv()
                    except EOFError:
                        status, a, log, seconds = "error", "compiler process died", "", time.monotonic() - r.started
                    if status == "ok":
                        self.cache.put(key, a, log=log, compile_seconds=seconds, extra={"name": cfg.variant_name})
                        out = CompileOutcome(cfg, src_sha, True, a, log, None, seconds, False, arch)
                    else:
                        out = CompileOutcome(cfg, src_sha, False, None, log, a, seconds, False, arch)
                elif not r.proc.is_alive():
                    out = CompileOutcome(cfg, src_sha, False, None, "", f"compiler process exited ({r.proc.exitcode})",
                                         time.monotonic() - r.started, False, arch)
                elif time.monotonic() - r.started > self.timeout:
                    r.proc.kill()
                    out = CompileOutcome(cfg, src_sha, False, None, "", f"compile timed out after {self.timeout:.0f}s",
                                         self.timeout, False, arch)
                if out is not None:
                    r.proc.join(timeout=5)
                    r.conn.close()
                    running.remove(r)
                    outcomes[r.index] = out
                    if on_done:
                        on_done(out)
        return [o for o in outcomes if o is not None]


_DIGESTS: dict[str, str] = {}


def _overlay_digest(cutlass_include: str) -> str:
    if cutlass_include not in _DIGESTS:
        _DIGESTS[cutlass_include] = overlay_digest(Path(cutlass_include))
    return _DIGESTS[cutlass_include]
