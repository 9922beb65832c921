"""Where a tuning run's seconds go, phase by phase (no torch here: the worker's CPU side and its
tests use it too)."""

from __future__ import annotations

import time
from collections.abc import Callable


class PhaseClock:
    """Seconds per phase, summed over every visit: each candidate's load, verification and timing
    add to one total each, so a plan of 48 candidates reports three numbers, not 144."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds: dict[str, float] = {}
        self._clock = clock
        self._last = clock()

    def lap(self, phase: str) -> None:
        """Charge the time since the previous lap (or the start) to `phase`."""
        now = self._clock()
        self.seconds[phase] = self.seconds.get(phase, 0.0) + now - self._last
        self._last = now
