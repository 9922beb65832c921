"""The worker's long-lived GPU measurement child (`python -m worker.gpu_bench --serve`).

One per worker and GPU: started on first use and kept, so torch, the CUDA context and cuBLAS are
set up once rather than once per job. A kernel that faults ends the child (its CUDA context is
gone); the caller sees the event stream stop without a result and the next call starts a fresh
one, as before. A kernel that never finishes (a stream-K barrier that is never reached, a
deadlocked pipeline) ends the child the same way: no event for `stall_seconds` and it is killed,
so a hung launch costs its candidate and minutes, not the job's lease forever.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

# The longest the child may go without an event: one candidate's verification and timing take
# seconds, the library's baseline (cuDNN's own algorithm search) tens of seconds at most.
STALL_SECONDS = float(os.environ.get("KILN_GPU_STALL_SECONDS", "180"))


class MeasurementProcess:
    def __init__(self, visible_device: str, log_path: Path, module: str = "worker.gpu_bench",
                 stall_seconds: float = STALL_SECONDS) -> None:
        self.visible_device = visible_device
        self.module = module
        self.log_path = log_path  # the child's stderr: its last lines explain a crash
        self.stall_seconds = stall_seconds
        self.stalled = False  # the last stream ended because the child went silent and was killed
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._log: IO[str] | None = None

    def start(self) -> None:
        self._running()

    def _running(self) -> subprocess.Popen[str]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self.close()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w")  # noqa: SIM115 - lives as long as the child
        env = {**os.environ, "CUDA_VISIBLE_DEVICES": self.visible_device, "PYTHONUNBUFFERED": "1"}
        self._proc = subprocess.Popen([sys.executable, "-m", self.module, "--serve"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=self._log, text=True, env=env)
        # A reader thread per child, so waiting for its next line can time out (a pipe read cannot).
        self._lines = queue.Queue()
        threading.Thread(target=_pump, args=(self._proc.stdout, self._lines), daemon=True,
                         name=f"kiln-measure-{self._proc.pid}").start()
        return self._proc

    def events(self, plan_path: Path) -> Iterator[dict[str, Any]]:
        """The plan's events up to and including `done`; ends early if the child dies or stalls
        (then `stalled` is set and the child is gone)."""
        proc = self._running()
        lines = self._lines
        self.stalled = False
        assert proc.stdin is not None
        try:
            proc.stdin.write(f"{plan_path}\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died starting up: stdout is at its end, the stream below is empty
        finished = False
        try:
            while True:
                try:
                    line = lines.get(timeout=self.stall_seconds)
                except queue.Empty:
                    self.stalled = True
                    break  # the finally below kills it
                if line is None:  # end of its stdout: it exited
                    break
                event = json.loads(line)
                if event["event"] == "ready":
                    continue
                yield event
                if event["event"] == "done":
                    finished = True
                    return
            if not self.stalled:
                proc.wait()
        finally:
            if not finished and proc.poll() is None:
                # Abandoned mid-plan (the job was cancelled or its lease lost) or stalled: the rest
                # of this plan's events must not be read as the next plan's, so this child goes.
                proc.kill()
                proc.wait()

    def stderr_tail(self, chars: int = 2000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc is not None else None

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()  # the child finishes its loop and exits
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._log is not None:
            self._log.close()
        self._proc, self._log = None, None


def _pump(stream: IO[str] | None, lines: queue.Queue[str | None]) -> None:
    """Every line the child writes, then None at its end."""
    if stream is not None:
        for line in stream:
            lines.put(line)
    lines.put(None)
