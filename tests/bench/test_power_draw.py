"""The power bench's bookkeeping on the CPU (NVML through a stand-in library, the per-window and
per-kernel figures), and on a GPU one sustained window of a cuBLAS GEMM with live NVML counters."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path
from typing import Any

import pytest

from bench.nvml import Nvml, NvmlError, reason_names
from bench.power_draw import Sample, shape_rows, summary, window_stats


class FakeNvmlLib:
    """libnvidia-ml's calls as the wrapper makes them: status 0, results through byref pointers."""

    def __init__(self, values: dict[str, int], missing: tuple[str, ...] = ()) -> None:
        self.values, self.missing = values, missing

    def __getattr__(self, name: str) -> Any:
        if name in self.missing or not name.startswith("nvml"):
            raise AttributeError(name)

        def call(*args: Any) -> int:
            if name in self.values:
                args[-1]._obj.value = self.values[name]
            return 0 if name != "nvmlDeviceGetTemperature" else 999  # 999: NVML_ERROR_UNKNOWN
        return call


def test_nvml_reads_through_pointers_and_names_the_failing_call() -> None:
    lib = FakeNvmlLib({"nvmlDeviceGetClockInfo": 1755, "nvmlDeviceGetPowerUsage": 699_000,
                       "nvmlDeviceGetTotalEnergyConsumption": 2**40, "nvmlDeviceGetCurrentClocksThrottleReasons": 0x4},
                      missing=("nvmlDeviceGetCurrentClocksEventReasons",))
    nvml = Nvml("0000:1B:00.0", lib=lib)
    assert (nvml.sm_clock_mhz(), nvml.power_mw(), nvml.energy_mj()) == (1755, 699_000, 2**40)
    assert reason_names(nvml.clock_limit_reasons()) == ["sw_power_cap"]  # the pre-535 name as fallback
    with pytest.raises(NvmlError, match="nvmlDeviceGetTemperature returned NVML status 999"):
        nvml.temperature_c()


def test_missing_driver_library_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_lib(_: str) -> None:
        raise OSError("libnvidia-ml.so.1: cannot open shared object file")
    monkeypatch.setattr(ctypes, "CDLL", no_lib)
    with pytest.raises(NvmlError, match="no NVIDIA driver"):
        Nvml("0000:1B:00.0")


def test_reason_names_keep_unknown_bits() -> None:
    assert reason_names(0x4 | 0x40 | 0x10000) == ["sw_power_cap", "hw_thermal", "0x10000"]
    assert reason_names(0) == []


def test_window_stats_turn_time_and_clock_into_cycles_and_energy_per_launch() -> None:
    samples = [Sample(0.0, 1700, 700_000, 0x4), Sample(0.1, 1800, 690_000, 0x4), Sample(0.2, 1900, 650_000, 0)]
    w = window_stats(samples, launches=1000, gpu_ms=90.0, host_s=0.1, energy_mj=70_000)
    assert w["us_per_launch"] == pytest.approx(90.0) and w["sm_mhz_mean"] == pytest.approx(1800)
    assert w["kcycles_per_launch"] == pytest.approx(162.0)  # 90 µs × 1800 MHz
    assert w["mj_per_launch"] == pytest.approx(70.0) and w["watts_from_energy"] == pytest.approx(700.0)
    assert w["gpu_busy"] == pytest.approx(0.9) and w["clock_limited_by"] == {"sw_power_cap": pytest.approx(0.667, abs=1e-3)}


def test_summary_is_each_kernels_median_over_the_library() -> None:
    def win(kernel: str, us: float, mhz: float) -> dict[str, Any]:
        return {"kernel": kernel, "us_per_launch": us, "sm_mhz_mean": mhz, "kcycles_per_launch": us * mhz / 1000,
                "mj_per_launch": us * 0.7, "watts_from_energy": 700.0}
    windows = [win("library", 91, 1800), win("kiln", 93, 1760), win("library", 92, 1790), win("kiln", 94, 1750),
               win("library", 90, 1810), win("kiln", 92, 1770)]
    med = summary(windows)
    assert med["library"]["us_per_launch"] == 91 and "us_per_launch_over_library" not in med["library"]
    assert med["kiln"]["us_per_launch_over_library"] == pytest.approx(93 / 91)
    assert med["kiln"]["sm_mhz_mean_over_library"] == pytest.approx(1760 / 1800)


def test_shape_rows_add_twins_and_drop_repeated_kernels(tmp_path: Path) -> None:
    row = {"name": "o_proj", "m": 1, "n": 1, "k": 1, "epilogue": "none", "winner": {"tile": [256, 128, 64]}}
    twin = {**row, "winner": {"tile": [128, 256, 64]}}
    (tmp_path / "a.json").write_text(json.dumps({"shapes": [row, {**row, "name": "other"}]}))
    (tmp_path / "b.json").write_text(json.dumps({"shapes": [row, twin]}))
    shapes = shape_rows([tmp_path / "a.json", tmp_path / "b.json"], ["o_proj"])
    assert list(shapes) == ["o_proj"] and [r["winner"]["tile"] for r in shapes["o_proj"]] == [[256, 128, 64], [128, 256, 64]]


@pytest.mark.gpu
def test_sustained_window_samples_the_gpu_it_keeps_busy() -> None:
    import torch

    from bench.nvml import cuda_bus_id
    from bench.power_draw import Sampler, sustained_window

    nvml = Nvml(cuda_bus_id(torch.cuda.current_device()))
    a = [torch.randn(4096, 4096, device="cuda", dtype=torch.half) for _ in range(2)]
    with Sampler(nvml) as sampler:
        w = sustained_window(lambda i: a[i] @ a[1 - i], 2, 1.0, nvml, sampler)
    assert w["samples"] >= 20 and 300 <= w["sm_mhz_mean"] <= 3000
    assert w["gpu_busy"] > 0.9 and w["mj_per_launch"] > 0 and w["launches"] >= 16


@pytest.mark.gpu
def test_launchers_verify_on_random_operands_then_zero_them_and_record_failures() -> None:
    import torch

    from bench.power_draw import launchers

    row = {"name": "tiny", "m": 256, "n": 256, "k": 256, "dtype": "f16", "epilogue": "none",
           "winner": {"family": "sm90_tma", "dtype": "f16", "layout_a": "row", "layout_b": "col", "epilogue": "none",
                      "tile": [128, 128, 64], "cluster": [1, 1]}}
    launch, sets, failed = launchers([row], {}, "zeros")  # no cubin for the Kiln kernel: recorded, not fatal
    assert list(launch) == ["library"] and len(failed) == 1 and "KeyError" in next(iter(failed.values()))
    assert sets >= 2 and torch.count_nonzero(launch["library"](0)) == 0
