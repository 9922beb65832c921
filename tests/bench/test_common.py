"""A result's command must rerun what was measured, environment settings included."""

from __future__ import annotations

import sys

import pytest

from bench.common import BEHAVIOUR_SETTINGS, command_line, provenance


def test_behaviour_settings_lead_the_recorded_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["bench/power_draw.py", "--only", "llama7b.o_proj"])
    monkeypatch.setenv("KILN_PDL", "0")
    monkeypatch.setenv("KILN_DATA_DIR", "/tmp/elsewhere")  # where the cache lives changes no timing
    assert command_line().startswith("KILN_PDL=0 python")
    assert "KILN_DATA_DIR" not in command_line()
    assert provenance()["command"].endswith("bench/power_draw.py --only llama7b.o_proj")


def test_a_plain_run_records_just_its_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["bench/turn_profile.py"])
    for name in BEHAVIOUR_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    assert command_line().split()[1:] == ["bench/turn_profile.py"]
