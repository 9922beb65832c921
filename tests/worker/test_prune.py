"""Each pruning rule, on a config it must keep and one it must drop; and the funnel report."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels import prune as P
from worker.kernels.config import (
    Decomposition,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Raster,
    Schedule,
    TileScheduler,
)
from worker.kernels.hardware import hardware_for
from worker.kernels.problem import GemmProblem
from worker.kernels.space import full_space, sm90_split_n_configs, sm90_tall_swapped_configs

H = hardware_for("sm_90a")
A80 = hardware_for("sm_80")
BIG = GemmProblem.from_spec(GemmSpec(m=8192, n=8192, k=8192))
SMALL = GemmProblem.from_spec(GemmSpec(m=1024, n=1024, k=1024))
DECODE = GemmProblem.from_spec(GemmSpec(m=16, n=4096, k=4096))
ODD_N = GemmProblem.from_spec(GemmSpec(m=1024, n=777, k=512))
RES5 = GemmProblem.from_spec(GemmSpec(m=1568, n=512, k=2048))  # r50.res5.1x1c: 104 tiles of 128x64 on 132 SMs
M128 = GemmProblem.from_spec(GemmSpec(m=128, n=4096, k=11008))  # 64 tiles of 128x64: CUTLASS shares them itself
C90 = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 128, 64),
                   schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma, tile_scheduler=TileScheduler.persistent)
C80 = KernelConfig(Family.sm80_tensorop, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 128, 32),
                   warp=(64, 64, 32), stages=3, swizzle=8)

SK64 = replace(C90, tile=(128, 64, 128), cluster=(1, 2), tile_scheduler=TileScheduler.streamk)
SKINNY = KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.none, (16, 128, 128),
                      warp=(16, 16, 128), stages=2)
M64 = GemmProblem.from_spec(GemmSpec(m=64, n=11008, k=4096))
SINGLE = replace(C90, tile=(64, 128, 128), cluster=(1, 2), schedule=Schedule.single, tile_scheduler=TileScheduler.none)

CASES = [
    (P.smem_capacity, C80, replace(C80, tile=(256, 256, 64), warp=(64, 64, 64), stages=6), BIG, H),
    (P.smem_capacity, C80, replace(C80, stages=6, tile=(256, 128, 64), warp=(64, 64, 64)), BIG, A80),
    (P.accumulator_registers, C90, replace(C90, tile=(256, 256, 64)), BIG, H),
    (P.accumulator_registers, replace(C90, schedule=Schedule.pingpong), replace(C90, schedule=Schedule.pingpong, tile=(128, 256, 64)), BIG, H),
    (P.accumulator_registers, C80, replace(C80, warp=(128, 64, 32)), BIG, H),
    (P.warps_per_block, C80, replace(C80, tile=(64, 64, 32), warp=(64, 32, 32)), BIG, H),
    (P.large_warp_tiles, replace(C80, warp=(32, 32, 32), tile=(64, 64, 32)), replace(C80, warp=(32, 32, 32), tile=(128, 64, 32)), BIG, H),
    (P.cooperative_tile_m, C90, replace(C90, tile=(64, 128, 64)), BIG, H),
    (P.tile_fits_problem, replace(C90, tile=(64, 128, 64)), replace(C90, tile=(256, 128, 64)), DECODE, H),
    # decode: only cooperative stream-K may use a 128-row tile on 16 rows (it spreads K over the SMs)
    (P.tile_fits_problem, replace(C90, tile_scheduler=TileScheduler.streamk), C90, DECODE, H),
    (P.fills_the_gpu, replace(C90, tile=(64, 64, 64)), replace(C90, tile=(256, 128, 64)), SMALL, H),
    (P.fills_the_gpu, replace(C90, tile=(256, 128, 64), tile_scheduler=TileScheduler.streamk),
     replace(C90, tile=(256, 128, 64)), SMALL, H),  # stream-K fills the SMs by splitting K
    (P.alignment_fits, replace(C90, alignment=(8, 8, 1), epilogue_schedule=EpilogueSchedule.nosmem),
     replace(C90, alignment=(8, 8, 1)), ODD_N, H),
    (P.alignment_fits, replace(C80, alignment=(8, 8, 1)), C80, ODD_N, H),
    # an 88-row tile's boxed B view holds whole 8-row groups and 64-wide K atoms: K = 1032 ends in a
    # partial atom (it would read the next row), which the even 96-row tile's flat view does not mind
    (P.odd_width_b_divides, replace(SINGLE, tile=(64, 96, 128)), replace(SINGLE, tile=(64, 88, 128)),
     GemmProblem.from_spec(GemmSpec(m=64, n=11008, k=1032)), H),
    # 2.x blocks are small enough for four per SM: 32 tiles x 16 slices fit; an sm90 block fills its SM
    (P.split_k_worthwhile, replace(C80, tile=(64, 128, 32), warp=(32, 64, 32), split_k=16, split_k_mode="serial"),
     replace(C90, tile_scheduler=TileScheduler.streamk, split_k=16), DECODE, H),
    (P.parallel_split_divides_k, replace(C90, split_k_mode="parallel", split_k=4),
     replace(C90, split_k_mode="parallel", split_k=3), DECODE, H),  # 4096 = 4 x 1024; 3 does not divide it
    # decode.m16 as the kernel runs it (swapped: 64 tiles of W): two slices fit in one wave, four do not
    (P.cluster_split_in_one_wave, replace(C90, tile=(64, 32, 128), schedule=Schedule.pingpong, swap_ab=True,
                                          epilogue_schedule=EpilogueSchedule.nosmem, tile_scheduler=TileScheduler.none,
                                          split_k_mode="cluster", split_k=2),
     replace(C90, tile=(64, 32, 128), schedule=Schedule.pingpong, swap_ab=True,
             epilogue_schedule=EpilogueSchedule.nosmem, tile_scheduler=TileScheduler.none,
             split_k_mode="cluster", split_k=4), GemmProblem.from_spec(GemmSpec(m=4096, n=16, k=4096)), H),
    (P.streamk_for_tails, C90, replace(C90, tile_scheduler=TileScheduler.streamk),
     GemmProblem.from_spec(GemmSpec(m=132 * 128, n=128, k=4096)), H),  # exactly one full wave: nothing to balance
    # llama7b.down's 256 tiles of 256x128 make 1.94 rounds: forced stream-K lost 15-43% there (session 33 run A);
    # its 352 tiles of 128x192 make 2.67, a third of the last round idle: stream-K stays in
    (P.streamk_for_tails, replace(C90, tile=(128, 192, 64), cluster=(1, 2), tile_scheduler=TileScheduler.streamk),
     replace(C90, tile=(256, 128, 64), cluster=(1, 2), tile_scheduler=TileScheduler.streamk,
             decomposition=Decomposition.streamk), GemmProblem.from_spec(GemmSpec(m=2048, n=4096, k=11008)), H),
    (P.streamk_runs_as_asked, replace(SK64, decomposition=Decomposition.streamk), SK64, RES5, H),  # heuristic: DP
    (P.streamk_runs_as_asked, SK64, replace(SK64, decomposition=Decomposition.streamk), M128, H),  # forced = heuristic
    (P.cluster_useful, replace(C90, cluster=(1, 2)), replace(C90, cluster=(2, 1)), DECODE, H),
    (P.cluster_fits_hardware, replace(C90, cluster=(2, 4)), replace(C90, cluster=(3, 1)), BIG, H),
    (P.cluster_fits_hardware, replace(C90, cluster=(2, 2)), replace(C90, cluster=(4, 4)), BIG, H),
    # bert-base.qkv: 576 tiles of 128x128 take 5 rounds on 132 SMs and on the 120 CTAs of 30 four-CTA
    # clusters; bert-large.qkv's 768 take 6 against 7; square.1024's 128 are one wave
    (P.four_cta_cluster_without_an_extra_round, replace(C90, cluster=(2, 2)),
     replace(C90, cluster=(2, 2), tile=(256, 128, 64)), GemmProblem.from_spec(GemmSpec(m=4096, n=2304, k=768)), H),
    (P.four_cta_cluster_without_an_extra_round, replace(C90, cluster=(1, 2)), replace(C90, cluster=(2, 2)),
     GemmProblem.from_spec(GemmSpec(m=4096, n=3072, k=1024)), H),
    (P.four_cta_cluster_without_an_extra_round, replace(C90, tile=(64, 128, 128), cluster=(1, 2)),
     replace(C90, tile=(64, 128, 128), cluster=(1, 4)), SMALL, H),
    (P.four_cta_cluster_without_an_extra_round, replace(C90, cluster=(4, 1)),
     replace(C90, cluster=(4, 1), tile_scheduler=TileScheduler.streamk), GemmProblem.from_spec(GemmSpec(m=4096, n=2304, k=768)), H),
    (P.epilogue_supported, replace(C90, epilogue=Epilogue.bias_residual_add),
     replace(C80, epilogue=Epilogue.bias_residual_add), BIG, H),
    (P.family_for_arch, C80, C90, BIG, hardware_for("sm_90")),
    (P.pingpong_without_streamk, replace(C90, tile_scheduler=TileScheduler.streamk),
     replace(C90, schedule=Schedule.pingpong, tile_scheduler=TileScheduler.streamk), BIG, H),
    # square.1024: 128 tiles of 64x128 are one round of 132 SMs, 512 of 64x64 are four
    (P.single_in_one_round, SINGLE, replace(SINGLE, tile=(64, 64, 128)), SMALL, H),
    (P.pingpong_in_one_round, replace(SINGLE, schedule=Schedule.pingpong, tile=(64, 64, 128),
                                      tile_scheduler=TileScheduler.persistent),
     replace(SINGLE, schedule=Schedule.pingpong, tile_scheduler=TileScheduler.persistent), SMALL, H),
    (P.sm80_stages_for_k, C80, replace(C80, stages=6), GemmProblem.from_spec(GemmSpec(m=4096, n=4096, k=64)), H),
    (P.swizzle_matches_grid, C80, replace(C80, swizzle=1), BIG, H),
    (P.wide_epilogue_for_stores, C90, replace(C90, epilogue_tile_n=64), BIG, H),
    (P.more_stores_in_flight, C90, replace(C90, epilogue_store_stages=4), BIG, H),
    (P.skinny_needs_clusters, replace(SKINNY, split_k=8), replace(SKINNY, split_k=16), DECODE, H),
    # four warps along K each keep a 64x256 fp32 partial tile: 256 KB
    (P.skinny_shared_memory, replace(SKINNY, tile=(64, 256, 64), warp=(64, 32, 32)),
     replace(SKINNY, tile=(64, 256, 128), warp=(64, 32, 32)), M64, H),
    # 128 tokens: 40 KB of activations hold 128 K values beside the row padding, one step of unroll 4
    # but not of 8
    (P.skinny_shared_memory, replace(SKINNY, tile=(128, 32, 128), warp=(128, 16, 128)),
     replace(SKINNY, tile=(128, 32, 256), warp=(128, 16, 256)), M64, H),
    (P.skinny_registers, replace(SKINNY, tile=(64, 128, 64), warp=(64, 16, 64)),
     replace(SKINNY, tile=(128, 128, 128), warp=(128, 32, 128)), M64, H),
    # 16 warps may use 128 registers each: two buffers of four 32-wide chunks fit (ptxas: 128, no
    # spills), three do not
    (P.skinny_registers, replace(SKINNY, tile=(16, 256, 128)), replace(SKINNY, tile=(16, 256, 128), stages=3), M64, H),
    (P.skinny_tile_fits, SKINNY, replace(SKINNY, tile=(32, 128, 128), warp=(32, 16, 128)), DECODE, H),
    (P.skinny_tile_fits, replace(SKINNY, split_k=4),
     replace(SKINNY, split_k=8), GemmProblem.from_spec(GemmSpec(m=16, n=4096, k=512)), H),  # 8 x 128 > K
    # decode.m64: 86 tiles of 64x128 leave SMs idle; 344 of 16x128 fill them twice without splitting
    (P.skinny_split_useful, replace(SKINNY, tile=(64, 128, 128), warp=(64, 16, 128), split_k=2),
     replace(SKINNY, split_k=2), M64, H),
]


@pytest.mark.parametrize("rule,keep,drop,problem,hw", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_rule_keeps_and_drops(rule, keep, drop, problem, hw) -> None:  # type: ignore[no-untyped-def]
    assert rule(keep, problem, hw) is None
    reason = rule(drop, problem, hw)
    assert isinstance(reason, str) and reason


def test_the_weight_streaming_kernel_is_judged_by_its_own_rules() -> None:
    """The CUTLASS families' rules do not apply to it (its tile K is a CTA step, not a stage)."""
    report = P.prune([SKINNY, replace(SKINNY, split_k=2)], DECODE, H)
    assert report.survivors == 2
    assert P.rule_applies(P.alignment_fits, SKINNY) and not P.rule_applies(P.smem_capacity, SKINNY)
    assert not P.rule_applies(P.skinny_registers, C90)
    assert P.skinny_needs_clusters(SKINNY, DECODE, A80)  # no clusters before sm_90: no DSMEM reduction


def test_decode_searches_lead_with_the_weight_streaming_kernel_and_keep_cutlass_kernels(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert all(c.family is not Family.sm90_skinny for c in full_space(DECODE, "sm_90a"))  # opt-in
    monkeypatch.setenv("KILN_SKINNY", "1")
    report = P.prune(full_space(DECODE, "sm_90a"), DECODE, H, limit=16)
    families = [c.family for c in report.kept]
    assert families[0] is Family.sm90_skinny and Family.sm90_tma in families
    big = P.prune(full_space(BIG, "sm_90a"), BIG, H)
    assert all(c.family is not Family.sm90_skinny for c in big.kept)  # M > 128: not enumerated


def test_every_rule_is_covered_and_documented() -> None:
    covered = {c[0] for c in CASES}
    assert set(P.RULES) <= covered
    assert all(rule.__doc__ for rule in P.RULES)


def test_funnel_report_adds_up_and_limits_distinct_cubins() -> None:
    report = P.prune(full_space(BIG, "sm_90a"), BIG, H, limit=10)
    assert report.total == sum(report.removed.values()) + report.survivors
    assert len(report.kept) == 10 and len({c.compiled for c in report.kept}) == 10
    assert all(c.family is Family.sm90_tma for c in report.kept[:4])  # wgmma kernels lead on a big GEMM


def test_small_problems_get_small_tiles_and_unaligned_ones_no_tma() -> None:
    small = P.prune(full_space(DECODE, "sm_90a"), DECODE, H, limit=8).kept
    assert all(c.tile[0] <= 64 or c.tile_scheduler is TileScheduler.streamk for c in small)
    assert any(c.tile_scheduler is TileScheduler.streamk or c.split_k > 1 for c in small)  # K split over the SMs
    odd = P.prune(full_space(ODD_N, "sm_90a"), ODD_N, H, limit=12).kept
    as_given = [c for c in odd if not c.pad_kn]
    padded = [c for c in odd if c.pad_kn]
    assert as_given and all(c.epilogue_schedule is not EpilogueSchedule.tma for c in as_given)
    assert all(c.alignment[2] == 1 for c in as_given)
    # BOLT's padding: N=777 zero-padded to 784 allows 128-bit loads and the TMA epilogue; both are timed
    assert padded and all(c.pad_kn == 8 and c.alignment == (8, 8, 8) for c in padded)
    survivors = P.prune(full_space(ODD_N, "sm_90a"), ODD_N, H).kept
    assert any(c.pad_kn and c.epilogue_schedule is EpilogueSchedule.tma for c in survivors)


def test_plain_sm90_and_sm80_get_only_2x_kernels() -> None:
    for arch in ("sm_90", "sm_80"):
        kept = P.prune(full_space(SMALL, arch), SMALL, hardware_for(arch), limit=6).kept
        assert kept and all(c.family is Family.sm80_tensorop for c in kept)


def test_aligned_problems_are_never_padded_and_padding_is_a_launch_contract() -> None:
    from worker.runtime.launch_meta import launch_meta

    assert not any(c.pad_kn for c in full_space(BIG, "sm_90a"))
    padded = replace(C90, pad_kn=8)
    assert padded.compiled == C90.compiled and padded.name.endswith("_padkn8")  # same cubin, other inputs
    assert ODD_N.padded(8).n == 784 and ODD_N.padded(8).k == 512 and ODD_N.padded(8).max_alignment() == (8, 8, 8)
    meta = launch_meta(padded)
    assert meta["gemm_padding"]["pad_k_and_n_to"] == 8 and "gemm_padding" not in launch_meta(C90)


def test_launch_time_variants_share_their_cubin() -> None:
    from worker.selection import expand_runtime_variants

    streamk = replace(C90, tile_scheduler=TileScheduler.streamk)
    out = expand_runtime_variants([streamk, C80], DECODE, H)
    assert {c.compiled for c in out} == {streamk.compiled, C80.compiled}  # no new cubin
    names = [c.name for c in out]
    assert any(n.endswith("_k2") for n in names) and any("_rm2" in n for n in names)
    assert [c for c in out if c.compiled == C80.compiled] == [C80]  # 2.x: swizzle is compiled in
    assert all(c.split_k == 1 for c in expand_runtime_variants([streamk], BIG, H))  # a full grid: no splits
    serial = replace(C80, tile=(64, 64, 32), warp=(32, 32, 32), split_k=2, split_k_mode="serial")
    slices = {c.split_k for c in expand_runtime_variants([serial], DECODE, H)}
    assert slices == {2, 4, 8, 16} and {c.compiled for c in expand_runtime_variants([serial], DECODE, H)} == {serial.compiled}


def test_resident_blocks_follow_shared_memory_and_registers() -> None:
    small = replace(C80, tile=(64, 64, 32), warp=(32, 32, 32), stages=3)  # 24 KB, 128 threads
    assert P.resident_blocks(small, H) == 4  # registers bind first (128 a thread)
    assert P.resident_blocks(replace(C80, tile=(256, 128, 64), warp=(64, 64, 64), stages=4), H) == 1
    assert P.resident_blocks(C90, H) == 1


def test_decode_searches_swapped_operands_in_their_own_frame() -> None:
    from worker.kernels.render import render, tma_operands

    swapped = [c for c in full_space(DECODE, "sm_90a") if c.swap_ab]
    assert swapped and all(c.family is Family.sm90_tma and c.tile[1] <= 32 for c in swapped)
    assert all(c.tile == (128, 192, 64) for c in full_space(BIG, "sm_90a") if c.swap_ab)  # the tall tile only
    cfg = replace(C90, tile=(64, 16, 128), schedule=Schedule.pingpong, swap_ab=True)
    frame = DECODE.as_run_by(cfg)
    assert (frame.m, frame.n, frame.k) == (4096, 16, 4096)
    assert P.tile_fits_problem(cfg, frame, H) is None
    assert cfg.name.endswith("_swab_none") and KernelConfig.from_dict(cfg.to_dict()) == cfg
    assert tma_operands(replace(cfg, epilogue_schedule=EpilogueSchedule.tma)) == ["B", "A", "D"]
    src = render(cfg)
    assert "ColumnMajor" in src and "{ int t = M; M = N; N = t; }" in src


def test_launch_time_splits_are_judged_in_the_kernels_frame() -> None:
    """A swapped 128x16 tile covers decode.m16 in 32 tiles (its frame: 4096 x 16), so stream-K
    split counts are worth timing; judged in the caller's frame it would look like 256 tiles."""
    from worker.selection import expand_runtime_variants

    swab = replace(C90, tile=(128, 16, 128), epilogue_schedule=EpilogueSchedule.nosmem,
                   tile_scheduler=TileScheduler.streamk, swap_ab=True)
    assert {c.split_k for c in expand_runtime_variants([swab], DECODE, H)} == {1, 2, 4}


def test_ranking_prefers_the_tma_epilogue_on_wide_tiles_even_on_one_wave() -> None:
    """bench/results/gemm_pairs_h200x2_20261129.json: on 4096x768x3072 (128 tiles of 128x192, one
    wave) the TMA epilogue ran 31.9 µs, the no-smem one 42.8; narrow decode tiles keep no-smem."""
    ffn2 = GemmProblem.from_spec(GemmSpec(m=4096, n=768, k=3072, epilogue=Epilogue.bias))
    wide = replace(C90, tile=(128, 192, 64), epilogue=Epilogue.bias)
    assert P.estimated_cost(wide, ffn2, H) < P.estimated_cost(replace(wide, epilogue_schedule=EpilogueSchedule.nosmem), ffn2, H)
    narrow = replace(C90, tile=(128, 32, 128))
    decode = GemmProblem.from_spec(GemmSpec(m=128, n=4096, k=11008))
    assert P.estimated_cost(replace(narrow, epilogue_schedule=EpilogueSchedule.nosmem), decode, H) < P.estimated_cost(narrow, decode, H)
    # gemm_pairs_h200_20261129_decode.json: on decode.m128 a 128x64 tile ran faster with TMA (36.2 vs 37.4 µs)
    sk64 = replace(C90, tile=(128, 64, 64), tile_scheduler=TileScheduler.streamk, split_k=2)
    assert P.estimated_cost(sk64, decode, H) < P.estimated_cost(replace(sk64, epilogue_schedule=EpilogueSchedule.nosmem), decode, H)


def test_decode_problems_keep_the_no_smem_epilogue_first() -> None:
    """decode.m64 as its swapped-operand kernel runs it (11008 x 64): the no-smem kernel won on the
    H200 and the TMA-first rule was measured on wide problems only."""
    swapped_frame = GemmProblem.from_spec(GemmSpec(m=11008, n=64, k=4096))
    tma = replace(C90, tile=(128, 64, 128))
    assert P.estimated_cost(replace(tma, epilogue_schedule=EpilogueSchedule.nosmem), swapped_frame, H) < \
        P.estimated_cost(tma, swapped_frame, H)


def test_swapped_and_plain_kernels_of_one_tile_are_picked_as_different_kernels() -> None:
    """decode.m128 (128x4096x11008): the swapped 128x128 stream-K kernel (32 tiles along N, the
    activations read by 32 blocks instead of 128) ties the plain one in the cost model. Grouped
    together, it was only ever a second pick, and the search never timed it on the H200. (Timed since:
    40-45 µs against 33 for 128x64 split 2, and a 32-tile grid's fix-up now ranks it out; the
    128x64 kernels are picked both ways.)"""
    from worker.selection import select_gemm

    picked = select_gemm(GemmSpec(m=128, n=4096, k=11008), "sm_90a", H, 16).report.kept
    plain = [c for c in picked if c.family is Family.sm90_tma and c.tile[:2] == (128, 64) and not c.swap_ab]
    swapped = [c for c in picked if c.tile[:2] == (128, 64) and c.swap_ab]
    assert plain and swapped


def test_stream_k_pays_for_every_partial_tile_it_fixes_up() -> None:
    """decode.m128 on the H200: 128x256 stream-K (16 tiles shared by 132 SMs, ~8 pieces a tile)
    68 µs, 128x64 stream-K split 2 (2 pieces) 38 µs; the model without the fix-up ranked the
    first ahead. Data-parallel kernels pay nothing."""
    m128 = GemmProblem.from_spec(GemmSpec(m=128, n=4096, k=11008))
    sk = replace(C90, epilogue_schedule=EpilogueSchedule.nosmem, tile_scheduler=TileScheduler.streamk)
    wide, split2 = replace(sk, tile=(128, 256, 64)), replace(sk, tile=(128, 64, 128), split_k=2)
    assert P.estimated_cost(split2, m128, H) < P.estimated_cost(wide, m128, H)
    assert P.streamk_fixup_seconds(C90, 32, H) == 0.0
    assert P.streamk_fixup_seconds(wide, 16, H) > 4 * P.streamk_fixup_seconds(split2, 64, H)


def test_a_one_wave_grid_forced_to_share_tiles_ranks_behind_running_it_data_parallel() -> None:
    """res5.1x1c as a GEMM (104 tiles of 128x64 for 132 SMs) on the H200: persistent 13.2 µs, the
    stream-K cubin forced to share tiles 17.9 (gemm_pairs_h200_20261201_streamk.json). With 132/104
    pieces per tile the model called sharing a 0.4 µs gain; every shared tile has two pieces at least."""
    from worker.kernels.config import Decomposition

    res5 = GemmProblem.from_spec(GemmSpec(m=1568, n=512, k=2048, epilogue=Epilogue.bias_relu))
    persistent = replace(C90, tile=(128, 64, 64), schedule=Schedule.cooperative, cluster=(1, 2),
                         epilogue=Epilogue.bias_relu)
    forced = replace(persistent, tile_scheduler=TileScheduler.streamk, decomposition=Decomposition.streamk)
    assert P.estimated_cost(persistent, res5, H) < P.estimated_cost(forced, res5, H)
    assert P.streamk_fixup_seconds(forced, 104, H) == P.streamk_fixup_seconds(replace(forced, split_k=2), 104, H)


def test_decode_searches_parallel_split_k_and_times_its_slice_counts() -> None:
    """decode.m16's swapped 64x16 kernel has 64 tiles for 132 SMs: cuBLAS splits K there and
    reduces in a second kernel; Kiln ranks that (partials, reduction launch) above the unsplit
    kernel, and the slice count is a launch argument tried like a raster order."""
    from worker.kernels.render import UnsupportedConfig, render
    from worker.selection import expand_runtime_variants, select_gemm

    swab = replace(C90, tile=(64, 16, 128), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem,
                   swap_ab=True)
    parallel = replace(swab, split_k_mode="parallel", split_k=2)
    assert P.estimated_cost(parallel, DECODE.as_run_by(parallel), H) < P.estimated_cost(swab, DECODE.as_run_by(swab), H)
    assert parallel.name.endswith("_swab_skp_none_k2") and parallel.compiled == replace(parallel, split_k=1)
    assert {c.split_k for c in expand_runtime_variants([parallel], DECODE, H) if c.raster.value == "heuristic"} == {2, 4}
    picked = select_gemm(GemmSpec(m=16, n=4096, k=4096), "sm_90a", H, 16).report.kept
    assert any(c.split_k_mode == "parallel" and c.swap_ab for c in picked)
    assert not any(c.split_k_mode == "parallel" for c in select_gemm(GemmSpec(m=4096, n=4096, k=4096), "sm_90a", H, 16).report.kept)
    src = render(replace(parallel, epilogue=Epilogue.bias_gelu))
    # the GEMM writes raw fp32 sums; the bias and GELU are the reduction kernel's
    assert "using ElementD = float;" in src and "kiln_splitk_reduce" in src
    assert "cutlass::epilogue::thread::Identity, ElementD" in src and "kiln_act::Gelu<float> act" in src
    with pytest.raises(UnsupportedConfig):
        render(replace(parallel, epilogue_schedule=EpilogueSchedule.tma))


def test_a_pipeline_of_three_stages_ranks_below_a_deeper_one() -> None:
    """gemm_pairs_h200_20261129_ktile.json: 128x128 ping-pong with a 128-deep K tile (3 stages
    beside the epilogue) ran 4-7% slower than with a 64-deep one (6 stages) on four shapes."""
    qkv = GemmProblem.from_spec(GemmSpec(m=4096, n=2304, k=768))
    deep = replace(C90, tile=(128, 128, 128), schedule=Schedule.pingpong, cluster=(1, 2))
    assert P.sm90_pipeline_stages(deep, H) == 3 and P.sm90_pipeline_stages(replace(deep, tile=(128, 128, 64)), H) == 6
    assert P.estimated_cost(replace(deep, tile=(128, 128, 64)), qkv, H) < P.estimated_cost(deep, qkv, H)


def test_a_wide_epilogue_subtile_is_offered_where_stores_bound_the_kernel() -> None:
    """Pointwise convs (M = N·P·Q outputs from K = 64) are store-bound; the suite's GEMMs are not."""
    from worker.kernels.render import UnsupportedConfig, render

    pointwise = GemmProblem.from_spec(GemmSpec(m=100352, n=64, k=64, epilogue="bias_relu"))
    wide = replace(C90, epilogue_tile_n=64)
    assert P.store_bound(pointwise, H) and P.wide_epilogue_for_stores(wide, pointwise, H) is None
    assert not any(P.store_bound(p, H) for p in (BIG, SMALL, DECODE))
    assert wide.compiled != C90.compiled and "_tma64_" in wide.name
    assert "EpilogueTileAuto" in render(C90) and "Shape<_" in render(wide) and "_64>, ElementAcc" in render(wide)
    with pytest.raises(UnsupportedConfig):
        render(replace(wide, tile=(128, 96, 64)))  # 64 does not divide N = 96


def test_store_bound_cooperative_kernels_get_a_twin_with_more_stores_in_flight() -> None:
    """res3.1x1b's GEMM (25088x512x128 + bias) writes 4x what it reads: its cooperative survivors
    come with four-stores-in-flight twins; a compute-bound GEMM's never do, nor ping-pong ones."""
    pointwise = GemmProblem.from_spec(GemmSpec(m=25088, n=512, k=128, epilogue=Epilogue.bias))
    kept = P.prune(full_space(pointwise, "sm_90a"), pointwise, H).kept
    twins = [c for c in kept if c.epilogue_store_stages > 2]  # (the split-N tile runs one: fewer)
    assert twins and all(c.schedule is Schedule.cooperative and c.epilogue_store_stages == 4 for c in twins)
    assert all(replace(c, epilogue_store_stages=0) in kept for c in twins)
    assert not any(c.epilogue_store_stages > 2 for c in P.prune(full_space(BIG, "sm_90a"), BIG, H).kept)


def test_the_default_search_offers_no_four_cta_cluster_and_the_rule_bounds_any_offered() -> None:
    """They lost on the H200 (space.SM90_CLUSTERS); offered anyway, the rule keeps only those that
    cost no extra round: bert-base.qkv (5 rounds on 132 SMs and on the 120 CTAs of 30 four-CTA
    clusters) keeps some, square.1024 (one wave) none."""
    from worker.kernels.space import SM90_CLUSTERS

    qkv = GemmProblem.from_spec(GemmSpec(m=4096, n=2304, k=768))
    assert all(c.cluster[0] * c.cluster[1] <= 2 for c in full_space(qkv, "sm_90a")) and (2, 2) not in SM90_CLUSTERS
    offered = [replace(c, cluster=(2, 2)) for c in full_space(qkv, "sm_90a") if c.cluster == (1, 2)]
    assert [c for c in P.prune(offered, qkv, H).kept if c.tile == (128, 128, 64)]
    small = [replace(c, cluster=(2, 2)) for c in full_space(SMALL, "sm_90a") if c.cluster == (1, 2)]
    assert not P.prune(small, SMALL, H).kept
    assert H.resident_ctas(4) == 120 and H.resident_ctas(2) == 132


def test_cluster_split_k_runs_one_resident_wave_of_even_slices_and_skips_the_memory_round_trip() -> None:
    """Cluster split-K (the K slices of a tile are one cluster's CTAs, summed through distributed
    shared memory): kept where every cluster is resident at once and K's tiles divide evenly;
    ranked without parallel split-K's partials traffic and second launch; its slice count is a
    launch argument, with no raster variants (one tile per cluster, no scheduler)."""
    from worker.kernels.render import UnsupportedConfig, render
    from worker.selection import expand_runtime_variants

    cluster = replace(C90, tile=(64, 32, 128), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem,
                      tile_scheduler=TileScheduler.none, swap_ab=True, split_k_mode="cluster", split_k=2)
    parallel = replace(cluster, tile_scheduler=TileScheduler.persistent, split_k_mode="parallel")
    run = DECODE.as_run_by(cluster)  # 4096 x 16 x 4096: 64 tiles of W
    assert cluster.name.endswith("_none_a888_swab_skc_none_k2") and cluster.compiled == replace(cluster, split_k=1)
    assert P.cluster_split_in_one_wave(cluster, run, H) is None
    # four-CTA clusters: the H200 holds 120 of their CTAs, and 64 tiles x 4 need 256
    assert "more than one round" in (P.cluster_split_in_one_wave(replace(cluster, split_k=4), run, H) or "")
    assert "equal slices" in (P.cluster_split_in_one_wave(cluster, GemmProblem.from_spec(
        GemmSpec(m=4096, n=16, k=1032)), H) or "")  # 9 K tiles of 128
    assert "cluster" in (P.cluster_split_in_one_wave(replace(cluster, split_k=16), run, H) or "")
    m128 = GemmProblem.from_spec(GemmSpec(m=4096, n=128, k=11008))  # decode.m128 as the swapped kernel runs it
    assert P.cluster_split_in_one_wave(replace(cluster, tile=(64, 128, 64)), m128, H) is None
    assert "tiles along N" in (P.cluster_split_in_one_wave(replace(cluster, tile=(128, 64, 64)), m128, H) or "")
    assert P.estimated_cost(cluster, run, H) < P.estimated_cost(parallel, run, H)
    variants = expand_runtime_variants([cluster], DECODE, H)
    assert [c.split_k for c in variants] == [2] and all(c.raster.value == "heuristic" for c in variants)
    assert any(c.split_k_mode == "cluster" and c.swap_ab for c in full_space(DECODE, "sm_90a"))
    src = render(cluster)
    assert "kiln::ClusterSplitKGemm<" in src and "GemmKernel::set_slices(p, splits)" in src
    assert "meta[kiln::kMetaCluster + 0] = p.slices;" in src and "GemmUniversal<" not in src
    assert "kiln::ClusterSplitKGemm<" in render(replace(cluster, epilogue_schedule=EpilogueSchedule.tma))
    for bad in (replace(cluster, cluster=(1, 2)), replace(cluster, tile_scheduler=TileScheduler.persistent),
                replace(cluster, swap_ab=False, epilogue_schedule=EpilogueSchedule.tma, warp_stores=True)):
        with pytest.raises(UnsupportedConfig):
            render(bad)
    with pytest.raises(UnsupportedConfig):  # the other modes still need a tile scheduler
        render(replace(cluster, split_k_mode="none", split_k=1))


def test_mid_size_gemms_search_the_swapped_tall_tile() -> None:
    """cuBLAS's 192-row tiling through swapped operands (session 18 run E: bert-base.qkv 25.6 µs
    against the 128x128 winner's 27.3): in the space for M > 128 (row-major A, column-major B),
    kept though it holds 192 accumulators a thread, and picked by the selection for bert-base.qkv."""
    from worker.selection import select_gemm

    qkv = GemmSpec(m=4096, n=2304, k=768)
    problem = GemmProblem.from_spec(qkv)
    swapped = [c for c in full_space(problem, "sm_90a") if c.swap_ab]
    tall = [c for c in swapped if c.schedule is Schedule.pingpong]
    assert {(c.tile, c.schedule, c.cluster) for c in tall} == {((128, 192, 64), Schedule.pingpong, (1, 2)),
                                                                ((128, 192, 64), Schedule.pingpong, (2, 1))}
    # and their single-consumer twins, for grids of one round (bert-base.attn_out: 132 swapped tiles)
    assert {(c.tile, c.cluster) for c in swapped if c.schedule is Schedule.single} == {
        ((128, 192, 64), (1, 2)), ((128, 192, 64), (2, 1))}
    assert all(P.accumulator_registers(c, problem.as_run_by(c), H) is None for c in tall)
    plain = replace(tall[0], swap_ab=False)
    assert P.accumulator_registers(plain, problem, H) == "192 accumulators per thread"  # never measured
    assert any(c.swap_ab and c.tile == (128, 192, 64) for c in select_gemm(qkv, "sm_90a", H, 16).report.kept)
    col_a = GemmProblem.from_spec(GemmSpec(m=4096, n=2304, k=768, layout_a="col"))
    assert not any(c.swap_ab for c in full_space(col_a, "sm_90a"))


def test_mid_size_gemms_search_the_split_n_192x256_tile() -> None:
    """The split-N cooperative 192x256 tile (64x128 atoms; 0.4% ahead of llama7b.qkv's winner in
    session 44 run A) is searched for M > 128 under 1x2, with its 192 accumulators and one subtile
    store in flight, and ranks among llama7b.qkv's 16 (four whole waves); decode shapes, short K
    (where it lost 10-25%) and column-major operands never see it."""
    qkv = GemmProblem.from_spec(GemmSpec(m=2048, n=12288, k=4096))
    (cfg,) = sm90_split_n_configs(qkv)
    assert (cfg.tile, cfg.cluster, cfg.schedule, cfg.epilogue_store_stages, cfg.wg_split_n) == (
        (192, 256, 64), (1, 2), Schedule.cooperative, 1, True)
    assert P.accumulator_registers(cfg, qkv, H) is None
    assert P.accumulator_registers(replace(cfg, wg_split_n=False), qkv, H) == "192 accumulators per thread"
    assert P.more_stores_in_flight(cfg, qkv, H) is None  # one store stage gives the mainloop room
    assert cfg in P.prune(full_space(qkv, "sm_90a"), qkv, H, limit=16).kept
    assert not list(sm90_split_n_configs(GemmProblem.from_spec(GemmSpec(m=128, n=4096, k=11008))))
    assert not list(sm90_split_n_configs(GemmProblem.from_spec(GemmSpec(m=4096, n=3072, k=1024))))  # short K
    assert not list(sm90_split_n_configs(GemmProblem.from_spec(GemmSpec(m=2048, n=4096, k=4096, layout_a="col"))))


def tall_pingpong(p: GemmProblem) -> list[KernelConfig]:
    """The tall swapped tile's persistent ping-pong configs (its single-consumer twins left out)."""
    return [c for c in sm90_tall_swapped_configs(p) if c.schedule is Schedule.pingpong]


def test_cluster_padding_ranks_the_unpadded_cluster_first() -> None:
    """CUTLASS rounds each grid dimension up to the cluster's and the padding CTAs run their
    mainloop: on llama7b.qkv (M = 2048: 11 swapped tiles of 192 rows) the 2x1 cluster covers the
    grid exactly and the 1x2 one pads it to 12 (345 against 272 µs, session 19 run A), so the
    search's one tall swapped slot goes to 2x1; where M divides evenly (bert, M = 4096) both cost
    the same."""
    qkv = GemmProblem.from_spec(GemmSpec(m=2048, n=12288, k=4096))
    c12, c21 = sorted(tall_pingpong(qkv), key=lambda c: c.cluster)
    assert (c12.cluster, c21.cluster) == ((1, 2), (2, 1))
    assert P._launched_tiles(c12, qkv.as_run_by(c12)) == 96 * 12 and P._tiles(c12, qkv.as_run_by(c12)) == 96 * 11
    assert P.estimated_cost(c21, qkv.as_run_by(c21), H) < P.estimated_cost(c12, qkv.as_run_by(c12), H)
    report = P.prune(full_space(qkv, "sm_90a"), qkv, H, limit=16)
    assert [c.cluster for c in report.kept if c.swap_ab] == [(2, 1)]
    bert = GemmProblem.from_spec(GemmSpec(m=4096, n=2304, k=768))
    c12, c21 = sorted(tall_pingpong(bert), key=lambda c: c.cluster)
    assert P.estimated_cost(c12, bert.as_run_by(c12), H) == P.estimated_cost(c21, bert.as_run_by(c21), H)


def test_equal_cost_ranks_the_cluster_along_the_problems_n_first() -> None:
    """A tie between 2-CTA clusters goes to the one pairing CTAs along the problem's N: 1x2 for a
    plain kernel, 2x1 for a swapped one (its frame's M is the problem's N). On bert-base.ffn1 the
    swapped tile's 2x1 ran 1.9-2.5% faster than its 1x2 twin, which the name had put first."""
    ffn1 = GemmSpec(m=4096, n=3072, k=768, epilogue="bias_gelu")
    bert = GemmProblem.from_spec(ffn1)
    c12, c21 = sorted(tall_pingpong(bert), key=lambda c: c.cluster)
    assert P.cluster_tie_break(c21) < P.cluster_tie_break(c12)
    plain12 = replace(c12, swap_ab=False)
    assert P.cluster_tie_break(plain12) < P.cluster_tie_break(replace(c21, swap_ab=False))
    report = P.prune(full_space(bert, "sm_90a"), bert, H, limit=16)
    assert [c.cluster for c in report.kept if c.swap_ab] == [(2, 1)]


def test_mma_sync_kernels_rank_behind_on_wgmma_hardware(monkeypatch: pytest.MonkeyPatch) -> None:
    """No 2.x kernel has won on the H200: on wgmma hardware a 2.x kernel's cost carries a surcharge
    (sm90 kernels' does not), and decode.m16's measured winner (swapped, no-smem epilogue: 64x32x128
    in session 19, which three 2.x split-K kernels had pushed out of its 16; 64x16x128 under the
    four-CTA cluster that multicasts its activation tile since session 21, single-consumer since
    session 24) makes its 16."""
    charged, sm90 = P.estimated_cost(C80, BIG, H), P.estimated_cost(C90, BIG, H)
    monkeypatch.setattr(P, "MMA_SYNC_ON_WGMMA_HARDWARE_COST", 1.0)
    assert charged == pytest.approx(P.estimated_cost(C80, BIG, H) * 1.3) and sm90 == P.estimated_cost(C90, BIG, H)
    monkeypatch.undo()
    winner = replace(C90, tile=(64, 16, 128), schedule=Schedule.single, epilogue_schedule=EpilogueSchedule.nosmem,
                     tile_scheduler=TileScheduler.none, swap_ab=True, cluster=(4, 1))  # one round: single consumer
    assert winner in P.prune(full_space(DECODE, "sm_90a"), DECODE, H, limit=16).kept


def test_decode_searches_carry_activation_multicast_and_cublas_96_wide_tile() -> None:
    """Session 21 run A's two decode gains reach the search: decode.m16's swapped 64x16 under a 4x1
    cluster (3% over 1x1) and decode.m64's plain 64x96 with the TMA epilogue (3% over the swapped
    128x64 winner, which stays in), under cuBLAS's own 1x4 cluster (session 22 run B: 3-4% over
    1x1); the 96-wide tile comes without its slower no-smem twin, and a four-CTA cluster joins a
    decode grid, in either frame, only where all its CTAs are resident at once."""
    m16 = DECODE
    m64 = M64
    names16 = [c.variant_name for c in P.prune(full_space(m16, "sm_90a"), m16, H, limit=16).kept]
    names64 = [c.variant_name for c in P.prune(full_space(m64, "sm_90a"), m64, H, limit=16).kept]
    # (one round of CTAs each: the single-consumer twins of the measured ping-pong winners)
    assert "sm90_f16_rc_t64x16x128_c4x1_single_nosmem_none_a888_swab_none" in names16
    assert "sm90_f16_rc_t64x96x128_c1x4_single_tmaw_none_a888_none" in names64  # per-warp stores
    # the swapped 128x64 (the winner before 64x96), as its single-consumer twin on this one-round grid
    assert "sm90_f16_rc_t128x64x128_c1x1_single_nosmem_none_a888_swab_none" in names64
    assert not [c for c in full_space(m64, "sm_90a") if c.tile[1] == 96 and c.epilogue_schedule is EpilogueSchedule.nosmem]
    big = replace(C90, tile=(64, 16, 128), swap_ab=True, cluster=(4, 1))
    assert P.four_cta_cluster_without_an_extra_round(big, GemmProblem.from_spec(GemmSpec(m=4096, n=16, k=4096)), H) is None
    assert P.four_cta_cluster_without_an_extra_round(big, GemmProblem.from_spec(GemmSpec(m=8192, n=16, k=4096)), H)
    wide = replace(C90, tile=(64, 96, 128), schedule=Schedule.pingpong, cluster=(1, 4))
    assert P.four_cta_cluster_without_an_extra_round(wide, m64, H) is None  # 115 tiles: 116 CTAs of 120
    assert P.four_cta_cluster_without_an_extra_round(wide, GemmProblem.from_spec(GemmSpec(m=64, n=12288, k=4096)), H)
    assert P.four_cta_cluster_without_an_extra_round(wide, GemmProblem.from_spec(GemmSpec(m=256, n=8192, k=4096)), H)


def test_decode_m128_search_carries_the_weight_multicast_pair() -> None:
    """cuBLAS's decode.m128 cluster in Kiln's swapped frame: two CTAs along the tokens share the
    weight tile, so the 90 MB weight streams from DRAM once (64x64x64 under 1x2 ran 6% faster than
    the cluster split-K winner, session 22 run C). One cluster along the tokens is the point, so
    cluster_useful lets a pair that covers every token through, and only that one."""
    names = [c.variant_name for c in P.prune(full_space(M128, "sm_90a"), M128, H, limit=16).kept]
    assert "sm90_f16_rc_t64x64x128_c1x2_single_tmaw_none_a888_swab_none" in names  # one round: single consumer
    # both K depths of the pair: the 64-deep one ran 3% faster, the cost model cannot tell them apart
    assert "sm90_f16_rc_t64x64x64_c1x2_single_tmaw_none_a888_swab_none" in names
    pair = replace(C90, tile=(64, 64, 64), schedule=Schedule.pingpong, swap_ab=True, cluster=(1, 2))
    assert P.cluster_useful(pair, M128.as_run_by(pair), H) is None  # 2 token tiles: one pair
    assert P.decode_multicast(pair, M128.as_run_by(pair))
    assert P.k_depth_matters_for(M128)(pair) and not P.k_depth_matters(pair)
    m64 = GemmProblem.from_spec(GemmSpec(m=64, n=4096, k=11008))  # one token tile: nothing to pair
    assert not P.decode_multicast(pair, m64.as_run_by(pair))
    assert P.cluster_useful(pair, m64.as_run_by(pair), H)


def test_one_round_grids_search_the_single_consumer_kernel_instead_of_idle_pingpong() -> None:
    """square.1024 (one round of 128 tiles) times the single-consumer twin of its 64x128 winner and
    no persistent data-parallel ping-pong kernel of one round; square.8192 (many rounds) no single
    kernel at all. A single kernel's raster is not a launch choice: it gets no raster variants."""
    from worker.selection import select_gemm

    small = select_gemm(GemmSpec(m=1024, n=1024, k=1024), "sm_90a", H, 16)
    kept = small.report.kept
    assert any(c.schedule is Schedule.single and c.tile == (64, 128, 128) and c.cluster == (1, 1) for c in kept)
    # each K depth its own group, the cluster-free twin first (session 24 run D: 128x64x64 1x1 0.94x cuBLAS)
    assert any(c.schedule is Schedule.single and c.tile == (128, 64, 64) and c.cluster == (1, 1) for c in kept)
    one_round = [c for c in kept if c.schedule is Schedule.pingpong and c.tile_scheduler is TileScheduler.persistent
                 and c.split_k == 1 and P._launched_tiles(c, SMALL) <= H.sm_count]
    assert one_round == []
    singles = [c for c in small.variants if c.schedule is Schedule.single]
    assert singles and all(c.raster is Raster.heuristic for c in singles)
    big = select_gemm(GemmSpec(m=8192, n=8192, k=8192), "sm_90a", H, 16)
    assert not any(c.schedule is Schedule.single for c in big.report.kept)


def test_single_kernel_holds_a_128x192_tile_in_one_warpgroup() -> None:
    """192 accumulators a thread fit the single kernel's 256-thread CTA (bert-base.attn_out, session
    24 run A); 256 (a 128x256 tile) do not."""
    assert P.accumulator_registers(replace(SINGLE, tile=(128, 192, 64)), SMALL, H) is None
    assert P.accumulator_registers(replace(SINGLE, tile=(128, 256, 64)), SMALL, H) is not None


def test_single_consumer_kernels_store_per_warp_unless_a_bias_is_staged() -> None:
    """Session 26 run A: per-warp TMA stores shortened the one-round single kernels' exposed last
    epilogue (square.1024, bert-base.attn_out, decode.m128) and lost with a bias (bert-base.ffn2's
    swapped 128x192), whose per-tile staging keeps the consumer-wide barriers."""
    from worker.kernels.space import single_consumer_stores

    single = replace(C90, tile=(64, 128, 64), schedule=Schedule.single, tile_scheduler=TileScheduler.none,
                     epilogue_schedule=EpilogueSchedule.tma, epilogue=Epilogue.none)
    assert single_consumer_stores(single).warp_stores
    assert single_consumer_stores(replace(single, epilogue=Epilogue.gelu)).warp_stores
    assert not single_consumer_stores(replace(single, epilogue=Epilogue.bias)).warp_stores
    assert not single_consumer_stores(replace(single, epilogue_schedule=EpilogueSchedule.nosmem)).warp_stores
    square = [c for c in full_space(SMALL, "sm_90a") if c.schedule is Schedule.single]
    assert square and all(c.warp_stores == (c.epilogue_schedule is EpilogueSchedule.tma) for c in square)
