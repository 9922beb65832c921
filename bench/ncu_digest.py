"""`python -m bench.ncu_digest`: the few Nsight Compute numbers that say what bounds a kernel.

    kiln bench ncu-digest bench/results/ncu_raw_h200_….csv.xz [--metric NAME …] [--kernels kiln_gemm nvjet]

`scripts/device/prelude.sh`'s `ncu_profile` brings back the raw page of a `--set full` run (every
metric of every profiled kernel, ~2,000 columns, xz'd). Reading it by hand is how sessions 24–26
found that the one-round kernels wait on latency, not bandwidth; this prints, per kernel in launch
order, the ones that decide between the usual suspects: DRAM, the L2, the L2-to-SM crossbar, shared
memory and the tensor pipe (each as a share of its peak over the kernel's elapsed time), with the
bytes behind them, so two kernels of the same problem can be compared column by column.
"""

from __future__ import annotations

import argparse
import csv
import io
import lzma
from pathlib import Path

# (column heading, raw-page metric, scale from base units: seconds, bytes, Hz): what bounds a
# streaming or tensor-core kernel.
DEFAULT_METRICS: list[tuple[str, str, float]] = [
    ("µs", "gpu__time_duration.sum", 1e6),
    ("SM GHz", "gpc__cycles_elapsed.avg.per_second", 1e-9),
    ("DRAM %", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1.0),
    ("DRAM rd MB", "dram__bytes_read.sum", 1e-6),
    ("L2 %", "lts__throughput.avg.pct_of_peak_sustained_elapsed", 1.0),
    ("L2 rd Msect", "lts__t_sectors_srcunit_tex_op_read.sum", 1e-6),
    ("L2 rd kreq", "lts__t_requests_srcunit_tex_op_read.sum", 1e-3),
    ("xbar→SM %", "l1tex__m_xbar2l1tex_read_bytes.sum.pct_of_peak_sustained_elapsed", 1.0),
    ("xbar→SM MB", "l1tex__m_xbar2l1tex_read_bytes.sum", 1e-6),
    ("smem rd %", "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed", 1.0),
    ("smem wr %", "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed", 1.0),
    ("tensor %", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed", 1.0),
    ("issue %", "sm__inst_issued.avg.pct_of_peak_sustained_elapsed", 1.0),
]


# ncu scales each column's unit to its values ("us", "Mbyte", "Ghz"): factors back to base units.
UNIT_FACTORS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6,
                "Gbyte": 1e9, "Tbyte": 1e12, "hz": 1.0, "Khz": 1e3, "Mhz": 1e6, "Ghz": 1e9}


def read_raw(path: Path) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The raw page's unit per column and one dict per profiled kernel."""
    data = path.read_bytes()
    text = (lzma.decompress(data) if path.suffix == ".xz" else data).decode()
    lines = [ln for ln in text.splitlines() if not ln.startswith("==")]  # ncu's own log lines
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header = next(reader)
    units = dict(zip(header, next(reader, []), strict=False))
    return units, [dict(zip(header, row, strict=False)) for row in reader if row]


def number(text: str | None) -> float | None:
    """ncu's formatted value ("27,066,079,295.15", "", "n/a") as a float, or None."""
    try:
        return float((text or "").replace(",", ""))
    except ValueError:
        return None


def short_name(kernel: str) -> str:
    """A kernel's name without its template arguments (cuBLAS's reduction kernels run long)."""
    return kernel.removeprefix("void ").split("<", 1)[0].split("(", 1)[0][:48]


def digest(path: Path, metrics: list[tuple[str, str, float]], kernels: list[str] | None) -> list[list[str]]:
    """Rows of the table: kernel, grid, then each metric (blank where the run did not collect it)."""
    units, rows = read_raw(path)
    missing = [m for _, m, _ in metrics if m not in units]
    table = [["kernel", "grid", *(h for h, _, _ in metrics)]]
    for row in rows:
        name = row.get("Kernel Name", "")
        if kernels and not any(k in name for k in kernels):
            continue
        cells = []
        for _, metric, scale in metrics:
            value = number(row.get(metric))
            factor = UNIT_FACTORS.get(units.get(metric, ""), 1.0)
            cells.append("" if value is None else f"{value * factor * scale:.2f}")
        table.append([short_name(name), row.get("Grid Size", ""), *cells])
    if missing:
        table.append([f"(not in this run: {', '.join(missing)})"])
    return table


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("raw", type=Path, help="an ncu --page raw --csv export, optionally .xz")
    p.add_argument("--metric", nargs="*", default=[], help="more raw-page metrics to show, by exact name")
    p.add_argument("--kernels", nargs="*", default=None, help="only kernels whose name contains one of these")
    args = p.parse_args()
    metrics = DEFAULT_METRICS + [(m, m, 1.0) for m in args.metric]
    table = digest(args.raw, metrics, args.kernels)
    widths = [max(len(r[i]) for r in table if len(r) > i) for i in range(len(table[0]))]
    for r in table:
        print("  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=False))))


if __name__ == "__main__":
    main()
