"""Compile many variants: cache first, then a process pool sized to the cores, a timeout each.

NVRTC cannot be interrupted inside a process, so every compile runs in a child process that is
killed when it overruns. A failure is recorded with its NVRTC log and is not retried: the same
source and options would fail the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing as mp
import os
import shutil
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


def _worker_main(conn: Any, pch_root: str, niceness: int) -> None:
    """A long-lived compile process: NVRTC's precompiled headers live as long as the process, so a
    worker that compiles many 2.x variants parses their common headers once."""
    import tempfile

    if niceness:
        os.nice(niceness)
    pch_dir = Path(tempfile.mkdtemp(prefix="pch-", dir=pch_root))
    try:
        _serve(conn, pch_dir)
    finally:
        shutil.rmtree(pch_dir, ignore_errors=True)


def _serve(conn: Any, pch_dir: Path) -> None:
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        source, arch, options = task
        options = [f"--pch-dir={pch_dir}" if o.startswith("--pch-dir=") else o for o in options]
        t = time.perf_counter()
        try:
            cubin, log = nvrtc.compile(source, arch=arch, options=options)
            conn.send(("ok", cubin, log, time.perf_counter() - t))
        except nvrtc.CompileError as exc:
            conn.send(("error", str(exc), exc.log, time.perf_counter() - t))
        except Exception as exc:  # anything else is a failed compile, with its message
            conn.send(("error", f"{type(exc).__name__}: {exc}", "", time.perf_counter() - t))


@dataclass
class _Slot:
    proc: Any
    conn: Any
    index: int | None = None
    started: float = 0.0


class Compiler:
    def __init__(self, cache_dir: Path, *, jobs: int | None = None, timeout: float = 300.0, use_pch: bool = True,
                 niceness: int = 0) -> None:
        """``niceness`` lowers the compile processes' CPU priority, for a caller that compiles behind
        work of its own on the same cores (the test suite's NVRTC batch runs behind the other tests)."""
        self.cache = CompileCache(cache_dir)
        self.niceness = niceness
        self.use_pch = use_pch
        self.jobs = jobs or os.cpu_count() or 1
        self.timeout = timeout
        self._ctx = mp.get_context("spawn")

    def options_for(self, cfg: KernelConfig, arch: str) -> list[str]:
        options = nvrtc.base_options(arch)
        if self.use_pch and cfg.is_2x:
            options += nvrtc.pch_options(self.cache.root / "pch" / arch)
        return options

    def _key(self, source: str, arch: str, options: list[str]) -> str:
        tc = toolchain()
        cutlass_include = nvrtc.header_roots()[0] / "include"
        return cache_key(source, arch=arch, options=options, nvrtc=tc.nvrtc, cutlass=tc.cutlass,
                         overlay=_overlay_digest(str(cutlass_include)))

    def _start_process(self) -> tuple[Any, Any]:
        """A fresh compile process and the parent's end of its pipe."""
        parent, child = self._ctx.Pipe()
        root = self.cache.root / "pch"
        root.mkdir(parents=True, exist_ok=True)
        proc = self._ctx.Process(target=_worker_main, args=(child, str(root), self.niceness), daemon=True)
        proc.start()
        child.close()
        return proc, parent

    def _spawn(self, slots: list[_Slot]) -> _Slot:
        slot = _Slot(*self._start_process())
        slots.append(slot)
        return slot

    def _collect(self, slot: _Slot, task: tuple[KernelConfig, str, str, list[str], str]) -> CompileOutcome | None:
        """The finished outcome of the slot's task, or None while it still runs. A worker that died
        or overran the timeout is replaced (the slot gets a fresh process)."""
        cfg, source, arch, options, key = task
        src_sha = hashlib.sha256(source.encode()).hexdigest()
        elapsed = time.monotonic() - slot.started
        failure: str | None
        try:
            reply = slot.conn.recv() if slot.conn.poll() else None
        except (EOFError, OSError):  # closed pipe, or reset when it died holding our unread task
            reply, failure = None, "compiler process died"
        else:
            failure = None if reply is not None else self._stopped(slot, elapsed)
        if reply is not None:
            status, a, log, seconds = reply
            if status == "ok":
                self.cache.put(key, a, log=log, compile_seconds=seconds, extra={"name": cfg.variant_name})
                return CompileOutcome(cfg, src_sha, True, a, log, None, seconds, False, arch)
            return CompileOutcome(cfg, src_sha, False, None, log, a, seconds, False, arch)
        if failure is None:
            return None
        self._replace_process(slot)
        return CompileOutcome(cfg, src_sha, False, None, "", failure, elapsed, False, arch)

    def _stopped(self, slot: _Slot, elapsed: float) -> str | None:
        """Why a process that has not replied never will (it exited, or overran the timeout); None
        while it may still."""
        if not slot.proc.is_alive():
            return f"compiler process exited ({slot.proc.exitcode})"
        if elapsed > self.timeout:
            return f"compile timed out after {self.timeout:.0f}s"
        return None

    def _replace_process(self, slot: _Slot) -> None:
        """A dead or overrunning process never takes another task: the next one goes to a fresh one."""
        slot.proc.kill()
        slot.proc.join(timeout=5)
        slot.conn.close()
        slot.proc, slot.conn = self._start_process()

    def _send(self, slot: _Slot, task: tuple[str, str, list[str]]) -> None:
        """Hand a task to an idle process. One that died while idle (killed by the OOM killer, say)
        is not the variant's fault: it is replaced and the task goes to the fresh process."""
        try:
            slot.conn.send(task)
        except OSError:
            self._replace_process(slot)
            slot.conn.send(task)

    def compile_all(
        self, configs: Iterable[KernelConfig], *, target_arch: str,
        on_done: Callable[[CompileOutcome], None] | None = None,
    ) -> list[CompileOutcome]:
        todo: list[tuple[KernelConfig, str, str, list[str], str]] = []
        outcomes: list[CompileOutcome | None] = []
        for cfg in configs:
            arch = compile_arch(cfg, target_arch)
            source = render(cfg)
            options = self.options_for(cfg, arch)
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
        pending = {i: t for i, t in zip((i for i, o in enumerate(outcomes) if o is None), todo, strict=True)}
        queue = sorted(pending, key=lambda i: pending[i][0].family.value)  # 2.x variants together: PCH reuse
        slots: list[_Slot] = []
        locks: dict[int, int] = {}  # task index -> lock file descriptor held while we compile it
        elsewhere: dict[int, float] = {}  # task index -> when to look again (another process compiles it)
        try:
            while queue or elsewhere or any(sl.index is not None for sl in slots):
                for index, when in list(elsewhere.items()):
                    if time.monotonic() >= when:
                        del elsewhere[index]
                        queue.append(index)  # check the cache / try the lock again
                while queue and (len(slots) < min(self.jobs, len(pending)) or any(sl.index is None for sl in slots)):
                    index = queue.pop(0)
                    cfg, source, arch, options, key = pending[index]
                    hit = self.cache.get(key)
                    if hit is not None:  # another worker on this host compiled it meanwhile
                        out = CompileOutcome(cfg, hashlib.sha256(source.encode()).hexdigest(), True, hit.cubin,
                                             hit.log, None, hit.compile_seconds, True, arch)
                        outcomes[index] = out
                        if on_done:
                            on_done(out)
                        continue
                    fd = self.cache.try_lock(key)
                    if fd is None:
                        elsewhere[index] = time.monotonic() + 0.5
                        continue
                    locks[index] = fd
                    slot = next((sl for sl in slots if sl.index is None), None) or self._spawn(slots)
                    self._send(slot, (source, arch, options))
                    slot.index, slot.started = index, time.monotonic()
                time.sleep(0.05)
                for slot in list(slots):
                    if slot.index is None:
                        continue
                    collected = self._collect(slot, pending[slot.index])
                    if collected is None:
                        continue
                    outcomes[slot.index] = out = collected
                    self.cache.unlock(locks.pop(slot.index))
                    slot.index = None
                    if on_done:
                        on_done(out)
        finally:
            for fd in locks.values():
                self.cache.unlock(fd)
            for slot in slots:
                with contextlib.suppress(OSError, ValueError):
                    slot.conn.send(None)
                slot.proc.join(timeout=2)
                if slot.proc.is_alive():
                    slot.proc.kill()
        return [o for o in outcomes if o is not None]


_DIGESTS: dict[str, str] = {}


def _overlay_digest(cutlass_include: str) -> str:
    if cutlass_include not in _DIGESTS:
        _DIGESTS[cutlass_include] = overlay_digest(Path(cutlass_include))
    return _DIGESTS[cutlass_include]
