"""Server-rendered SVG charts: no JavaScript chart library, nothing fetched by the browser."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # microseconds; None: the candidate has no time (failed)
    winner: bool = False


def candidates_chart(bars: list[Bar], baseline_us: float | None, width: int = 760) -> str:
    """Horizontal bars of kernel time per candidate (shorter is better), the library baseline as a line."""
    timed = [b for b in bars if b.value]
    if not timed:
        return '<p class="muted">no timed candidates</p>'
    top = max([b.value or 0 for b in timed] + [baseline_us or 0]) * 1.08
    row, left, plot = 16, 330, width - 330 - 60
    height = row * len(timed) + 36
    out = [f'<svg role="img" aria-label="candidate times" width="{width}" height="{height}" viewBox="0 0 {width} {height}">']
    for i, b in enumerate(sorted(timed, key=lambda b: b.value or 0)):
        y = 8 + i * row
        w = plot * (b.value or 0) / top
        color = "#1e8449" if b.winner else "#2e86c1"
        out.append(f'<text x="{left - 6}" y="{y + 11}" text-anchor="end">{escape(b.label[:52])}</text>')
        out.append(f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{row - 5}" fill="{color}"/>')
        out.append(f'<text x="{left + w + 4:.1f}" y="{y + 11}">{b.value:.1f}</text>')
    if baseline_us:
        x = left + plot * baseline_us / top
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="4" y2="{height - 24}" stroke="#c0392b" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{x:.1f}" y="{height - 10}" text-anchor="middle" fill="#c0392b">library {baseline_us:.1f} µs</text>')
    out.append("</svg>")
    return "".join(out)


def roofline(flops: float, bytes_moved: float, seconds: float, peak_flops: float, peak_bw: float,
             width: int = 640, height: int = 280) -> str:
    """Where the winner sits: achieved FLOP/s against arithmetic intensity, under the two ceilings."""
    ai = flops / bytes_moved
    achieved = flops / seconds
    x0, x1, y0, y1 = 0.5, 20000.0, 1e12, peak_flops * 2
    lx = lambda v: 50 + (width - 70) * (math.log10(v) - math.log10(x0)) / (math.log10(x1) - math.log10(x0))  # noqa: E731
    ly = lambda v: height - 30 - (height - 50) * (math.log10(v) - math.log10(y0)) / (math.log10(y1) - math.log10(y0))  # noqa: E731
    ridge = peak_flops / peak_bw
    pts = [(x0, max(y0, x0 * peak_bw)), (ridge, peak_flops), (x1, peak_flops)]
    path = " ".join(f"{lx(a):.1f},{ly(b):.1f}" for a, b in pts)
    return (
        f'<svg role="img" aria-label="roofline" width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        f'<polyline points="{path}" fill="none" stroke="#1d2330" stroke-width="2"/>'
        f'<circle cx="{lx(ai):.1f}" cy="{ly(achieved):.1f}" r="5" fill="#1e8449"/>'
        f'<text x="{lx(ai) + 8:.1f}" y="{ly(achieved) - 6:.1f}">{achieved / 1e12:.0f} TFLOP/s at {ai:.0f} FLOP/B</text>'
        f'<text x="{lx(ridge):.1f}" y="{ly(peak_flops) - 6:.1f}">{peak_flops / 1e12:.0f} TFLOP/s, {peak_bw / 1e12:.1f} TB/s</text>'
        f'<text x="50" y="{height - 8}">arithmetic intensity (FLOP/byte, log)</text></svg>'
    )


def sparkline(values: list[float], width: int = 360, height: int = 60) -> str:
    if not values:
        return '<p class="muted">no data yet</p>'
    top = max(values) or 1
    step = width / max(1, len(values))
    bars = "".join(
        f'<rect x="{i * step:.1f}" y="{height - height * v / top:.1f}" width="{max(1.0, step - 2):.1f}" '
        f'height="{height * v / top:.1f}" fill="#2e86c1"/>' for i, v in enumerate(values))
    return f'<svg role="img" aria-label="per hour" width="{width}" height="{height}">{bars}</svg>'
