"""bench.ncu_digest reads Nsight Compute's raw page into the few numbers that say what bounds a kernel."""

from __future__ import annotations

import lzma
from pathlib import Path

from bench.ncu_digest import DEFAULT_METRICS, digest, number, short_name

RAW = "\n".join([
    '"ID","Kernel Name","Grid Size","gpu__time_duration.sum","dram__bytes_read.sum","lts__throughput.avg.pct_of_peak_sustained_elapsed"',
    '"","","","us","Mbyte","%"',
    '"0","kiln_gemm","(16, 8, 1)","7.264000","4.208384","35.37"',
    '"1","void cublasLt::splitKreduce_kernel<32, 16, int>(cublasLt::cublasSplitKParams<float>)","(64, 1, 1)","1,204.5","","n/a"',
])


def test_values_are_scaled_from_each_columns_unit(tmp_path: Path) -> None:
    path = tmp_path / "raw.csv.xz"
    path.write_bytes(lzma.compress(RAW.encode()))
    metrics = [m for m in DEFAULT_METRICS if m[1] in RAW]
    table = digest(path, metrics, None)
    assert table[0] == ["kernel", "grid", "µs", "DRAM rd MB", "L2 %"]
    assert table[1] == ["kiln_gemm", "(16, 8, 1)", "7.26", "4.21", "35.37"]
    assert table[2][:3] == ["cublasLt::splitKreduce_kernel", "(64, 1, 1)", "1204.50"]
    assert table[2][3:] == ["", ""]  # blank and n/a cells stay blank


def test_kernel_filter_and_missing_metrics_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "raw.csv"
    path.write_text(RAW)
    table = digest(path, [("µs", "gpu__time_duration.sum", 1e6), ("x", "no_such_metric", 1.0)], ["kiln"])
    assert [r[0] for r in table[1:-1]] == ["kiln_gemm"]
    assert "no_such_metric" in table[-1][0]


def test_number_and_short_name() -> None:
    assert number("27,066,079,295.15") == 27066079295.15 and number("") is None and number("n/a") is None
    assert short_name("void cublasLt::splitKreduce_kernel<32, 16>(x)") == "cublasLt::splitKreduce_kernel"
