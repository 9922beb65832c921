"""Pruning and ranking for Conv2d fprop: the GEMM rules on the implicit GEMM, plus conv rules.

Each conv rule is a named, tested function of (config, conv problem, hardware) that returns None
to keep a config or a short reason to drop it, exactly like worker/kernels/prune.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from worker.kernels import prune as gemm_rules
from worker.kernels.config import ConvIterator, Family, KernelConfig
from worker.kernels.conv_problem import ConvProblem
from worker.kernels.hardware import Hardware
from worker.kernels.prune import Check, PruneReport, diverse_top, estimated_cost, funnel

ConvRule = Callable[[KernelConfig, ConvProblem, Hardware], str | None]
SMALL_C = 16


def conv_alignment_fits(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> str | None:
    """Activation/filter loads are vectors along C, output stores along K: the width must divide
    them, and the multistage mainloop's cp.async moves at least 4 bytes."""
    prob = cp.rewritten(cfg.s2d, cfg.pad_c)
    allowed = prob.max_alignment()
    if any(a > b for a, b in zip(cfg.alignment, allowed, strict=True)):
        return f"alignment {cfg.alignment} > {allowed} for C={prob.kernel_c}, K={cp.k}"
    if cfg.family is Family.sm90_conv_fprop and (cfg.alignment[0] < 8 or cfg.alignment[2] < 8):
        return "TMA im2col needs 16-byte channel rows (C and K multiples of 8)"
    if cfg.alignment[0] < 2:
        # cp.async copies 4, 8 or 16 bytes: odd channel counts must be padded (BOLT's padding)
        return f"C={prob.kernel_c} allows only 2-byte loads; cp.async needs 4: pad the channels"
    return None


def conv_iterator_fits(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> str | None:
    """Fixed-channel iterators need C equal to the access width; few-channel ones a small C."""
    c = cp.rewritten(cfg.s2d, cfg.pad_c).kernel_c
    if cfg.conv_iterator is ConvIterator.fixed_channels and c != cfg.alignment[0]:
        return f"fixed-channel iterator needs C == {cfg.alignment[0]} (C={c})"
    if cfg.conv_iterator is ConvIterator.few_channels and c > SMALL_C:
        return f"few-channel iterator is for C <= {SMALL_C} (C={c})"
    return None


def conv_small_channels(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> str | None:
    """With fewer channels than the K tile, the optimized/analytic iterators load mostly padding:
    small C goes to the fixed/few-channel iterators, which pack several filter taps per K tile."""
    c = cp.rewritten(cfg.s2d, cfg.pad_c).kernel_c
    packs_taps = cfg.conv_iterator in (ConvIterator.fixed_channels, ConvIterator.few_channels)
    if c < cfg.tile[2] and not packs_taps and c <= SMALL_C:
        return f"C={c} below the K tile {cfg.tile[2]}: use a fixed/few-channel iterator"
    return None


def conv_optimized_over_analytic(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> str | None:
    """The analytic iterator recomputes every offset; keep it only where the optimized one cannot go
    (dilated filters) — it is the reference path, not a contender."""
    if cfg.conv_iterator is ConvIterator.analytic and cp.dilation == (1, 1):
        return "optimized iterator covers this problem"
    return None


def conv_padding_worthwhile(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> str | None:
    """Pad C only when it buys a wider access than the channels allow as given."""
    if not cfg.pad_c:
        return None
    c = cp.space_to_depth(cfg.s2d).c
    if c % cfg.pad_c == 0:
        return f"C={c} is already a multiple of {cfg.pad_c}"
    return None


def conv_k_tile_matches_channels(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> str | None:
    """The sm90 conv mainloop steps through C in K-tile blocks per filter tap: a K tile wider than
    C computes zero-filled channels, a narrower one than needed only adds pipeline steps. One K
    tile fits each channel count: 64 from C = 64 up, else C's power of two (at least wgmma's 16)."""
    if cfg.family is not Family.sm90_conv_fprop:
        return None
    c = cp.rewritten(cfg.s2d, cfg.pad_c).kernel_c
    want = 64 if c >= 64 else max(16, 1 << (c.bit_length() - 1))
    return None if cfg.tile[2] == want else f"K tile {cfg.tile[2]} for C={c} (want {want})"


def conv_space_to_depth_pays(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> str | None:
    """Fold space-to-depth only where the channels are too few for a K tile (the stem's C=3: 12
    after folding 2x2) and only into TMA kernels, whose im2col boxes are what few channels starve;
    with C ≥ 16 the fold only multiplies the zero taps of the rounded-up filter."""
    if not cfg.s2d:
        return None
    if cfg.family is not Family.sm90_conv_fprop:
        return "space-to-depth is offered to the sm90 TMA-im2col kernels"
    if cp.c >= 16:
        return f"C={cp.c} fills a K tile without folding"
    return None


CONV_RULES: list[ConvRule] = [conv_padding_worthwhile, conv_space_to_depth_pays, conv_alignment_fits, conv_iterator_fits,
                              conv_small_channels, conv_k_tile_matches_channels, conv_optimized_over_analytic]
# GEMM rules that hold for the implicit GEMM (alignment and swizzle have conv-specific versions).
# cluster_useful matters more here than for GEMMs: the non-persistent conv grid is rounded up to
# whole clusters, so a 2-CTA cluster along N with one N tile (K = 64 filters) left half the CTAs
# idle (res2's 3x3 ran 64 µs against 37 µs for a 2.x kernel, conv2d_h200_20261129_session6.json).
GEMM_RULES_FOR_CONV = [gemm_rules.family_for_arch, gemm_rules.epilogue_supported, gemm_rules.smem_capacity, gemm_rules.accumulator_registers,
                       gemm_rules.warps_per_block, gemm_rules.large_warp_tiles, gemm_rules.cooperative_tile_m,
                       gemm_rules.tile_fits_problem, gemm_rules.fills_the_gpu, gemm_rules.split_k_worthwhile,
                       gemm_rules.cluster_useful, gemm_rules.wide_epilogue_for_stores,
                       gemm_rules.more_stores_in_flight, gemm_rules.sm80_stages_for_k]


def estimated_conv_cost(cfg: KernelConfig, cp: ConvProblem, hw: Hardware) -> float:
    """The implicit GEMM's cost (padded K included), slowed by narrow loads: an 8-wide access moves
    16 B per instruction, a 1-wide one 2 B."""
    prob = cp.rewritten(cfg.s2d, cfg.pad_c)
    gemm = prob.gemm
    if cfg.family is Family.sm90_conv_fprop:
        # the mainloop reads whole K tiles per tap: C rounds up to the K tile, and narrow K tiles
        # do less work per pipeline step
        tk = cfg.tile[2]
        gemm = replace(gemm, k=-(-prob.kernel_c // tk) * tk * prob.r * prob.s)
    cost = estimated_cost(cfg, gemm, hw)
    if cfg.family is Family.sm90_conv_fprop and cfg.tile[2] < 64:
        cost *= 1 + 0.1 * (64 // cfg.tile[2] - 1)
    align = cfg.alignment[0]
    if align < 8:
        cost *= 1 + 0.15 * (8 // align - 1)
    if cfg.conv_iterator is ConvIterator.analytic:
        cost *= 1.3
    return cost


def prune_conv(configs: list[KernelConfig], cp: ConvProblem, hw: Hardware, *, limit: int | None = None) -> PruneReport:
    def conv_check(rule: ConvRule) -> Check:
        return lambda cfg: rule(cfg, cp, hw)

    def gemm_check(rule: gemm_rules.Rule) -> Check:  # the GEMM rules see the implicit GEMM
        return lambda cfg: rule(cfg, cp.rewritten(cfg.s2d, cfg.pad_c).gemm, hw)

    checks: dict[str, Check] = {rule.__name__: conv_check(rule) for rule in CONV_RULES}
    checks |= {rule.__name__: gemm_check(rule) for rule in GEMM_RULES_FOR_CONV}
    report = funnel(configs, checks, lambda c: estimated_conv_cost(c, cp, hw), None)
    if limit is not None:
        report.kept = _with_every_family(_across_paddings(report.kept, limit), report.kept, limit)
    return report


def _with_every_family(kept: list[KernelConfig], ranked: list[KernelConfig], limit: int) -> list[KernelConfig]:
    """Each kernel family with survivors gets at least its best config timed (when the limit
    leaves room): the cost model ranks 2.x and sm90 conv kernels by the same roofline, yet on the
    H200 the sm90 ones won res3/res4 3x3 by 1.3-1.8x and lost C=64 layers by 1.7x, so only a
    measurement decides. (GEMM keeps no such reserve: reserving 2.x slots there only displaced
    winners, bench/results/gemm_h200_20261129_family_reserve_experiment.json.)"""
    if limit < 4:
        return kept
    out = list(kept)
    for family in dict.fromkeys(c.family for c in ranked):
        if any(c.family is family for c in out):
            continue
        best = next(c for c in ranked if c.family is family)
        counts = {f: sum(c.family is f for c in out) for f in {c.family for c in out}}
        crowded = max(counts, key=lambda f: counts[f])
        drop = max(i for i, c in enumerate(out) if c.family is crowded)
        out[drop] = best
    return out


def _across_paddings(ranked: list[KernelConfig], limit: int) -> list[KernelConfig]:
    """Alternate between operand preparations (channels as given, padded to 4 or 8, folded
    space-to-depth), each spread by diverse_top: the cost model cannot tell a padded kernel from a
    narrower unpadded one; the GPU can."""
    by_pad: dict[tuple[int, int], list[KernelConfig]] = {}
    for cfg in ranked:
        by_pad.setdefault(cfg.operand_prep, []).append(cfg)
    lanes = [diverse_top(group, limit) for group in by_pad.values()]
    kept: list[KernelConfig] = []
    for i in range(limit):
        kept += [lane[i] for lane in lanes if i < len(lane)]
    return kept[:limit]
