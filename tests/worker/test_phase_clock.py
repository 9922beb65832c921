"""The tuning run's phase breakdown (worker/phase_clock.py): laps charge the time since the last one."""

from __future__ import annotations

from worker.phase_clock import PhaseClock


def test_laps_charge_the_time_since_the_last_lap_and_sum_repeated_phases() -> None:
    ticks = iter([0.0, 1.0, 1.5, 4.0, 4.25])
    clock = PhaseClock(lambda: next(ticks))
    clock.lap("settle")   # 1.0
    clock.lap("verify")   # 0.5
    clock.lap("time")     # 2.5
    clock.lap("verify")   # 0.25
    assert clock.seconds == {"settle": 1.0, "verify": 0.75, "time": 2.5}
