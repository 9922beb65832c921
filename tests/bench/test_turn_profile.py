"""The turn profile's bookkeeping on the CPU, and on a GPU the suite's own turn timed launch by launch."""

from __future__ import annotations

import pytest

from bench.turn_profile import by_index, summary, thirds


def test_by_index_takes_each_launch_places_median_over_turns() -> None:
    assert by_index([[1.0, 5.0, 9.0], [3.0, 6.0, 7.0], [2.0, 4.0, 8.0]]) == [2.0, 5.0, 8.0]
    with pytest.raises(ValueError):
        by_index([[1.0, 2.0], [1.0]])  # turns of unequal length are a bug upstream, not something to average


def test_thirds_split_the_turn_in_order() -> None:
    assert thirds([1.0, 1.0, 2.0, 2.0, 3.0, 3.0]) == {"first": 1.0, "middle": 2.0, "last": 3.0}


def test_summary_states_each_third_over_the_librarys() -> None:
    med = summary({"library": [10.0] * 3 + [11.0] * 3 + [12.0] * 3, "kiln": [10.0] * 3 + [11.5] * 3 + [12.6] * 3})
    assert "first_over_library" not in med["library"]
    assert med["kiln"]["first_over_library"] == pytest.approx(1.0)
    assert med["kiln"]["last_over_library"] == pytest.approx(1.05)
    assert med["kiln"]["turn_over_library"] == pytest.approx(11.5 / 11.0)


@pytest.mark.gpu
def test_a_suite_turn_profiles_launch_by_launch() -> None:
    import torch

    from worker.gpu_bench import time_launches

    a = [torch.randn(2048, 2048, device="cuda", dtype=torch.half) for _ in range(2)]
    turns = [time_launches([lambda: a[0] @ a[1], lambda: a[1] @ a[0]], 12) for _ in range(3)]
    profile = by_index(turns)
    assert len(profile) == 12 and all(0 < t < 10_000 for t in profile)
    assert set(thirds(profile)) == {"first", "middle", "last"}
