"""The worker's long-lived GPU measurement child (`python -m worker.gpu_bench --serve`).

One per worker and GPU: started on first use and kept, so torch, the CUDA context and cuBLAS are
set up once rather than once per job. A kernel that faults ends the child (its CUDA context is
gone); the caller sees the event stream stop without a result and the next call starts a fresh
one, as before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any


class MeasurementProcess:
    def __init__(self, visible_device: str, log_path: Path, module: str = "worker.gpu_bench") -> None:
        self.visible_device = visible_device
        self.module = module
        self.log_path = log_path  # the child's stderr: its last lines explain a crash
        self._proc: subprocess.Popen[str] | None = None
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
        return self._proc

    def events(self, plan_path: Path) -> Iterator[dict[str, Any]]:
        """The plan's events up to and including `done`; ends early if the child dies."""
        proc = self._running()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(f"{plan_path}\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died starting up: stdout is at its end, the stream below is empty
        finished = False
        try:
            for line in proc.stdout:
                event = json.loads(line)
                if event["event"] == "ready":
                    continue
                yield event
                if event["event"] == "done":
                    finished = True
                    return
            proc.wait()
        finally:
            if not finished and proc.poll() is None:
                # Abandoned mid-plan (the job was cancelled or its lease lost): the rest of this
                # plan's events must not be read as the next plan's, so this child goes.
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
