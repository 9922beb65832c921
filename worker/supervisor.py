"""`kiln worker --gpus all|0,1,…`: one worker process per GPU, each with its own lease and heartbeat.

A crashed or hung GPU process takes only its own lease with it (the service re-queues the job when
the lease expires); the supervisor restarts it with backoff and leaves the others running. A child
that ends on its own is not restarted: exit 0 is a finished run (`--exit-when-idle` drained the
queue, `--max-jobs` reached), exit 2 a refusal no restart can fix (the tuning step cannot load, the
service refused the GPU); the supervisor returns once every child has ended, 2 if any was refused.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

log = logging.getLogger("kiln.supervisor")

FINISHED, REFUSED = 0, 2  # `kiln worker`'s own exit codes that end a GPU's run for good


def parse_gpus(spec: str, visible: int) -> list[int]:
    if spec == "all":
        if visible == 0:
            raise ValueError("--gpus all: no GPU visible")
        return list(range(visible))
    try:
        gpus = sorted({int(x) for x in spec.split(",") if x.strip()})
    except ValueError as exc:
        raise ValueError(f"--gpus {spec!r}: expected 'all' or a list like 0,1") from exc
    if not gpus or min(gpus) < 0:
        raise ValueError(f"--gpus {spec!r}: expected 'all' or a list like 0,1")
    return gpus


@dataclass
class Child:
    gpu: int
    proc: subprocess.Popen
    started: float
    restarts: int = 0


def child_env(workers: int, environ: dict[str, str] | None = None) -> dict[str, str]:
    """Compile pools per GPU worker, so that a host runs at most 2 × cores NVRTC processes however
    many GPUs it has (each can take GBs); a worker compiling alone still gets 2/N of the cores.
    The workers share one compile cache, whose per-variant lock keeps two of them from compiling
    the same variant. KILN_COMPILE_JOBS set by the user wins."""
    env = dict(os.environ if environ is None else environ)
    cores = os.cpu_count() or 1
    env.setdefault("KILN_COMPILE_JOBS", str(max(1, min(cores, 2 * cores // max(1, workers)))))
    return env


class Supervisor:
    def __init__(self, gpus: list[int], extra_args: list[str], name_prefix: str = "gpu") -> None:
        self.gpus = gpus
        self.extra_args = extra_args
        self.name_prefix = name_prefix
        self.children: dict[int, Child] = {}
        self.refused: list[int] = []
        self._stopping = False

    def _spawn(self, gpu: int, restarts: int = 0) -> Child:
        cmd = [sys.executable, "-m", "service.cli.main", "worker", "--gpu", str(gpu),
               "--name", f"{self.name_prefix}{gpu}", *self.extra_args]
        child = Child(gpu, subprocess.Popen(cmd, env=child_env(len(self.gpus))), time.monotonic(), restarts)
        log.info("GPU %d: worker pid %d", gpu, child.proc.pid)
        return child

    def stop(self, *_: object) -> None:
        self._stopping = True
        for c in self.children.values():
            if c.proc.poll() is None:
                c.proc.send_signal(signal.SIGTERM)

    def run(self) -> int:
        signal.signal(signal.SIGTERM, self.stop)
        signal.signal(signal.SIGINT, self.stop)
        self.children = {g: self._spawn(g) for g in self.gpus}
        # A crashed child's restart is scheduled, not slept on: one GPU backing off for a minute must
        # not keep the loop from seeing the others exit, nor keep SIGTERM waiting out the backoff.
        due: dict[int, tuple[float, int]] = {}
        while not self._stopping and (self.children or due):
            time.sleep(0.5)
            now = time.monotonic()
            for gpu, (when, restarts) in list(due.items()):
                if now >= when and not self._stopping:
                    del due[gpu]
                    self.children[gpu] = self._spawn(gpu, restarts)
            for gpu, c in list(self.children.items()):
                code = c.proc.poll()
                if code is None or self._stopping:
                    continue
                del self.children[gpu]
                if code in (FINISHED, REFUSED):
                    if code == REFUSED:
                        self.refused.append(gpu)
                        log.error("GPU %d: worker refused to run (exit 2, its log says why); not restarting", gpu)
                    continue
                # Quick successive crashes back off (up to a minute); a long healthy run resets it.
                restarts = 0 if now - c.started > 300 else c.restarts + 1
                delay = min(60.0, 0.5 * 2 ** min(restarts, 7))
                log.warning("GPU %d: worker exited with %s; restarting in %.1fs", gpu, code, delay)
                due[gpu] = (now + delay, restarts)
        # SIGTERM can land while a restart is being spawned, after stop() signalled the children it
        # knew: signal again, so that child stops too instead of running out the 30 s wait below.
        self.stop()
        for c in self.children.values():
            try:
                c.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                c.proc.kill()
        return REFUSED if self.refused else FINISHED
