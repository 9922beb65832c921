"""Rendering: every token a template receives comes from a whitelist table, for any accepted spec."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels import render as R
from worker.kernels.config import (
    ActivationMath,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Schedule,
    TileScheduler,
)
from worker.kernels.hardware import hardware_for
from worker.kernels.problem import GemmProblem
from worker.kernels.prune import prune, sm90_pipeline_stages
from worker.kernels.render import render, template_tokens
from worker.kernels.space import full_space

WHITELIST = (set(R.ELEMENT.values()) | set(R.LAYOUT.values()) | set(R.ACTIVATION_FN.values()) | set(R.SCHEDULE.values())
             | set(R.KILN_ACTIVATION_FN.values()) | {"Element", "float"} | set(R.EPILOGUE_SCHEDULE.values()) | set(R.TILE_SCHEDULER.values()) | {R.SINGLE_TILE_SCHEDULER} | set(R.MMA_TYPE.values()) | {""})
SAFE_WORD = re.compile(r"^[a-z_0-9]+$")
EPILOGUE_SHAPE = re.compile(r"^Shape<_(64|128), _(16|32|64|128|256)>$")

specs = st.builds(
    GemmSpec,
    m=st.integers(1, 1 << 16), n=st.integers(1, 1 << 16), k=st.integers(1, 1 << 16),
    dtype=st.sampled_from(["f16", "bf16"]), layout_a=st.sampled_from(["row", "col"]),
    layout_b=st.sampled_from(["row", "col"]),
    epilogue=st.sampled_from([e for e in Epilogue if "residual" not in e.value]),
)


def _check_tokens(tokens: dict) -> None:
    for key, value in tokens.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            assert 0 <= value <= 1024, key
        elif isinstance(value, list):
            assert all(isinstance(v, int) and 0 < v <= 256 for v in value), key
        elif key in ("name", "generator_version", "activation", "schedule", "epilogue_schedule", "tile_scheduler"):
            assert SAFE_WORD.match(value), (key, value)
        elif key == "epilogue_tile":  # CUTLASS's automatic subtile, or a CuTe shape made of config integers
            assert value == R.EPILOGUE_TILE_AUTO or EPILOGUE_SHAPE.match(value), (key, value)
        else:
            assert value in WHITELIST, (key, value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs, st.sampled_from(["sm_90a", "sm_80"]))
def test_any_accepted_spec_renders_only_whitelisted_tokens(spec: GemmSpec, arch: str) -> None:
    problem = GemmProblem.from_spec(spec)
    for cfg in prune(full_space(problem, arch), problem, hardware_for(arch), limit=3).kept:
        tokens = template_tokens(cfg.compiled)
        _check_tokens(tokens)
        source = render(cfg)
        assert "{{" not in source and "{%" not in source
        assert f"_{cfg.tile[0]}" in source or f"<{cfg.tile[0]}," in source or f"= {cfg.tile[0]};" in source


def test_residual_epilogues_render_for_the_families_that_can_fuse_them() -> None:
    spec = GemmSpec(m=4096, n=4096, k=4096, epilogue="bias_residual_add_relu")
    problem = GemmProblem.from_spec(spec)
    kept = prune(full_space(problem, "sm_90a"), problem, hardware_for("sm_90a"), limit=6).kept
    assert kept and all(c.epilogue_schedule.value == "tma" for c in kept)
    src = render(kept[0])
    assert "LinCombPerColBiasEltAct" in src and "ReLu" in src and "ElementC = Element;" in src


def _store_bound_winner(**changes: object) -> KernelConfig:
    """res3.1x1b's GEMM winner (25088x512x128 + bias): 256x128x64 cooperative, 1x2 cluster."""
    cfg = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias, (256, 128, 64),
                       schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma, cluster=(1, 2),
                       tile_scheduler=TileScheduler.persistent)
    return replace(cfg, **changes)


def test_epilogue_store_stages_build_the_tma_epilogue_with_that_many_stores_in_flight() -> None:
    default, raised = _store_bound_winner(), _store_bound_winner(epilogue_store_stages=4)
    assert "CollectiveBuilder<\n    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,\n    " \
           "cutlass::epilogue::collective::EpilogueTileAuto" in render(default)
    assert "kiln_epilogue" not in render(default)
    src = render(raised)
    assert "constexpr int kStagesD = cute::min(kSubtiles, 4);" in src
    assert "Sm90TmaBuilderImpl<" in src and "kiln_epilogue::Policy" in src
    assert raised.name != default.name and raised.compiled == raised  # compiled in: its own cubin


def test_epilogue_store_stages_only_for_tma_epilogues() -> None:
    with pytest.raises(R.UnsupportedConfig):
        render(_store_bound_winner(epilogue_store_stages=4, epilogue_schedule=EpilogueSchedule.nosmem))
    with pytest.raises(R.UnsupportedConfig):
        render(_store_bound_winner(epilogue_store_stages=16))


def test_warp_stores_wrap_cutlass_epilogue_in_the_per_warp_collective() -> None:
    default, warp = _store_bound_winner(), _store_bound_winner(warp_stores=True)
    assert "WarpStoreEpilogue" not in render(default)
    src = render(warp)
    assert "using CutlassEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<" in src
    assert "using CollectiveEpilogue = kiln_epilogue::WarpStoreEpilogue<CutlassEpilogue>;" in src
    assert "class WarpStoreEpilogue : public Base" in src
    assert warp.variant_name != default.variant_name and warp.compiled == warp  # compiled in: its own cubin
    with_stages = render(_store_bound_winner(warp_stores=True, epilogue_store_stages=4))
    assert "using CutlassEpilogue = typename cutlass::epilogue::collective::detail::Sm90TmaBuilderImpl<" in with_stages


@pytest.mark.parametrize("bad", [{"epilogue_schedule": EpilogueSchedule.nosmem}, {"epilogue": Epilogue.bias_residual_add_relu},
                                 {"family": Family.sm90_conv_fprop}])
def test_warp_stores_only_where_the_collective_supports_them(bad: dict) -> None:
    """No residual (the subtile buffer is shared with C loads), TMA epilogue, GEMMs."""
    with pytest.raises(R.UnsupportedConfig):
        render(_store_bound_winner(warp_stores=True, **bad))


def test_more_stores_in_flight_leave_the_mainloop_fewer_stages() -> None:
    hw = hardware_for("sm_90a")
    stages = [sm90_pipeline_stages(_store_bound_winner(epilogue_store_stages=s), hw) for s in (0, 4, 8)]
    assert stages == [4, 4, 3]  # 48 KB a stage; 8 KB a 128x32 subtile store buffer


def test_epilogues_without_a_residual_leave_out_the_beta_term() -> None:
    """CUTLASS's LinComb fusions evaluate beta * C even with C void (one FFMA per output element
    that cannot fold, session 12's profile); Kiln's own trees have no such node."""
    plain = render(_store_bound_winner(epilogue=Epilogue.none))
    assert "kiln_fusion::ScaledAccEltAct<cutlass::epilogue::thread::Identity, Element, float, float>" in plain
    assert "LinComb" not in plain.split("namespace cutlass::epilogue::fusion {")[-1]
    assert "args.epilogue.thread.beta" not in plain and "args.epilogue.ptr_C = nullptr;" in plain
    biased = render(_store_bound_winner())
    assert "kiln_fusion::ScaledAccBiasEltAct<\n    cutlass::epilogue::thread::Identity, Element, float, Element, false, float>" in biased
    assert "args.epilogue.thread.bias_ptr = bias;" in biased


def test_swapped_operands_take_the_bias_along_the_kernel_rows() -> None:
    swapped = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (64, 16, 128),
                           schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                           tile_scheduler=TileScheduler.persistent, swap_ab=True)
    assert "kiln_act::Gelu, Element, float, Element, true, Element>" in render(swapped)


def test_cutlass_activation_math_renders_no_kiln_functors() -> None:
    src = render(_store_bound_winner(epilogue=Epilogue.bias_silu, activation_math=ActivationMath.cutlass))
    assert "cutlass::epilogue::thread::SiLu, Element, float, Element, false, float>" in src
    assert "namespace kiln_act" not in src


def test_activation_math_leaves_other_epilogues_alone() -> None:
    """ReLU, hardswish, identity and residuals render the same source (and name) under every math,
    so their cubins stay the ones measured before activation_math existed."""
    for epilogue in (Epilogue.none, Epilogue.bias_relu, Epilogue.hardswish, Epilogue.residual_add_relu):
        sources = {render(_store_bound_winner(epilogue=epilogue, activation_math=m)) for m in ActivationMath}
        names = {_store_bound_winner(epilogue=epilogue, activation_math=m).name for m in ActivationMath}
        assert len(sources) == 1 and len(names) == 1, epilogue
    assert _store_bound_winner(epilogue=Epilogue.silu).name.endswith("_silu")  # packed: the default, no suffix


def test_activation_math_names_one_kernel_once() -> None:
    """Maths that render the same source carry the same name: SiLU's "tanh" and "packed" (pairs are
    GELU's only), and GELU's where the TMA epilogue's node is not there to pair it (no-smem, bf16)."""
    for cfg in (_store_bound_winner(epilogue=Epilogue.silu),
                _store_bound_winner(epilogue=Epilogue.gelu, epilogue_schedule=EpilogueSchedule.nosmem),
                _store_bound_winner(epilogue=Epilogue.gelu, dtype=DType.bf16)):
        tanh, packed = (replace(cfg, activation_math=m) for m in (ActivationMath.tanh, ActivationMath.packed))
        assert render(tanh) == render(packed) and tanh.name == packed.name
    gelu = _store_bound_winner(epilogue=Epilogue.gelu)
    tanh, packed = (replace(gelu, activation_math=m) for m in (ActivationMath.tanh, ActivationMath.packed))
    assert render(tanh) != render(packed) and tanh.name == packed.name + "_tanh"
    assert replace(gelu, activation_math=ActivationMath.cutlass).name == packed.name + "_cutlass"


@pytest.mark.parametrize("math", [ActivationMath.tanh, ActivationMath.packed])
def test_kiln_activation_math_swaps_in_kiln_functors(math: ActivationMath) -> None:
    """SiLU and GELU through one tanh.approx each; "packed" computes GELU's node in the fp16
    output type, so the functor sees half pairs (tanh.approx.f16x2); SiLU stays FP32."""
    src = render(_store_bound_winner(epilogue=Epilogue.bias_silu, activation_math=math))
    element = "Element" if math is ActivationMath.packed else "float"
    assert "kiln_act::SiLu, Element, float, Element, false, float>" in src
    assert "namespace kiln_act" in src and "tanh.approx.f16x2" in src
    gelu = render(_store_bound_winner(epilogue=Epilogue.gelu, activation_math=math))
    assert f"kiln_fusion::ScaledAccEltAct<kiln_act::Gelu, Element, float, {element}>" in gelu


def test_packed_activation_math_stays_fp32_for_bf16_residual_and_nosmem() -> None:
    """Pairs are fp16 only; a residual goes through CUTLASS's LinComb (post-activation in FP32); the
    no-smem epilogue's LinearCombinationGeneric computes in FP32 whatever the functor."""
    bf16 = _store_bound_winner(epilogue=Epilogue.bias_gelu, activation_math=ActivationMath.packed, dtype=DType.bf16)
    assert "kiln_act::Gelu, Element, float, Element, false, float>" in render(bf16)
    nosmem = replace(_store_bound_winner(epilogue=Epilogue.silu, activation_math=ActivationMath.packed),
                     epilogue_schedule=EpilogueSchedule.nosmem)
    assert "kiln_act::SiLu, ElementD, 1, ElementAcc, float>" in render(nosmem)
    assert R.activation_element(replace(bf16, dtype=DType.f16, epilogue=Epilogue.residual_add_relu)) == "float"


def test_residual_epilogues_keep_cutlass_linear_combination_with_beta() -> None:
    src = render(_store_bound_winner(epilogue=Epilogue.residual_add))
    assert "cutlass::epilogue::fusion::LinCombEltAct<" in src and "kiln_fusion" not in src
    assert "args.epilogue.thread.beta = beta;" in src and "args.epilogue.ptr_C = C;" in src


SKINNY = KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (16, 128, 128),
                      warp=(16, 16, 128), stages=4)


def test_the_weight_streaming_kernel_renders_its_shape_from_the_tables() -> None:
    tokens = template_tokens(SKINNY)
    _check_tokens(tokens)
    assert (tokens["tile"], tokens["warps"], tokens["rows_per_warp"], tokens["unroll"], tokens["mma_type"]) == \
        ([16, 128], 8, 16, 4, "f16")
    source = render(replace(SKINNY, dtype=DType.bf16, epilogue=Epilogue.bias_residual_add_relu))
    assert "f32.bf16.bf16.f32" in source and "thread::ReLu<float>" in source and "p.beta" in source
    assert "p.beta" not in render(SKINNY)  # no residual: no source term


@pytest.mark.parametrize("bad", [dict(tile=(16, 48, 128)), dict(warp=(16, 16, 96), tile=(16, 128, 96)),
                                 dict(warp=(8, 16, 128)), dict(warp=(16, 48, 128)), dict(tile=(16, 128, 64)),
                                 dict(tile=(16, 32, 128), warp=(16, 32, 128)),  # one warp
                                 dict(layout_b=Layout.row), dict(stages=5)])
def test_the_weight_streaming_kernel_refuses_shapes_outside_its_tables(bad: dict) -> None:
    with pytest.raises(R.UnsupportedConfig):
        template_tokens(replace(SKINNY, **bad))


def test_four_cta_clusters_size_their_grid_from_the_drivers_cluster_count() -> None:
    """CUTLASS's 18-SM-GPC estimate would give 29 four-CTA clusters on 132 SMs (the H200 holds 32):
    those kernels' builders take the driver's count; two-CTA kernels keep their source as measured."""
    from worker.runtime.launch_meta import launch_meta

    base = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 64, 64),
                        cluster=(1, 2), schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.persistent)
    for cluster in ((2, 2), (4, 1), (1, 4)):
        big = replace(base, cluster=cluster)
        assert R.queries_cluster_occupancy(big)
        source = render(big)
        assert "int max_active_clusters," in source and "hw.max_active_clusters = max_active_clusters;" in source
        assert f"using ClusterShape = Shape<_{cluster[0]}, _{cluster[1]}, _1>;" in source
        args = launch_meta(big)["builder_args"]
        assert args[args.index("decomposition:i32") + 1] == "max_active_clusters:i32"
    assert not R.queries_cluster_occupancy(base) and "max_active_clusters" not in render(base)
    assert "max_active_clusters:i32" not in launch_meta(base)["builder_args"]


def test_odd_width_tiles_get_cutes_extended_wgmma_and_k_first_b_atoms() -> None:
    """An 88-row tile (11 groups of 8: decode.m64's 126 tiles) compiles only with CuTe's extended
    wgmma widths and B's 64-wide K atoms side by side; every tile the search already times renders
    as before (no define, the builder's own mainloop), so their cubins and cache keys stay."""
    base = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (64, 96, 128),
                        cluster=(1, 4), schedule=Schedule.single, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.none, warp_stores=True)
    assert [n for n in range(8, 257, 8) if R.needs_extended_wgmma(n)] == [
        24, 40, 48, 56, 72, 80, 88, 104, 112, 120, 136, 144, 152, 160, 168, 176, 184, 200, 208, 216, 224, 232, 240, 248]
    for tile in ((64, 96, 128), (64, 16, 128), (128, 192, 64), (256, 128, 64), (64, 64, 64), (64, 8, 64)):
        source = render(replace(base, tile=tile))
        assert "CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED" not in source and "KFirstSmemAtomB" not in source
    odd = render(replace(base, tile=(64, 88, 128), cluster=(1, 2)))
    assert "#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED 1" in odd
    assert "using KFirstMainloop = cutlass::gemm::collective::CollectiveMma<" in odd
    assert "typename BuiltMainloop::GmemTiledCopyB, KFirstSmemAtomB," in odd
    # B in one TMA box a stage: the boxed copy is the one the mainloop loads and the host encodes
    assert "using CollectiveMainloop = kiln_mainloop::OneBoxB<KFirstMainloop," in odd
    assert "describe_tma(p.mainloop.tma_load_b_boxed, CollectiveMainloop::boxed_b(B, N, K, L, sB)" in odd
    assert "meta[kiln::kMetaParamsSize] = 0;" in odd  # problems its view cannot hold are refused
    for source in (render(base), render(replace(base, tile=(64, 80, 128)))):
        assert "OneBoxB" not in source and "tma_load_b_boxed" not in source
    wide_even = render(replace(base, tile=(64, 80, 128)))  # 10 groups: the builder's layout partitions
    assert "CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED" in wide_even and "KFirstSmemAtomB" not in wide_even
    for bad in (dict(tile=(64, 88, 64)), dict(tile=(64, 88, 128), phase_clock=True),
                dict(tile=(64, 88, 128), cluster=(2, 1))):
        with pytest.raises(R.UnsupportedConfig):
            render(replace(base, **bad))


def test_interleaved_k_slices_are_a_cluster_split_choice_that_leaves_contiguous_kernels_alone() -> None:
    """split_k_interleave names its kernel `_skci` and defines the strided K-tile walk into the cluster
    split-K kernel only; contiguous slices render as before, and any other kernel refuses it."""
    split = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (64, 128, 64),
                         schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem,
                         tile_scheduler=TileScheduler.none, swap_ab=True, split_k_mode="cluster", split_k=2)
    interleaved = replace(split, split_k_interleave=True)
    assert interleaved.variant_name == split.variant_name.replace("_skc_", "_skci_")
    source = render(interleaved)
    assert "#define KILN_SPLIT_K_INTERLEAVE 1" in source and "kiln::StridedKTile k_tile_iter{int(rank), slices};" in source
    assert "KILN_SPLIT_K_INTERLEAVE 1" not in render(split)
    with pytest.raises(R.UnsupportedConfig):
        render(replace(interleaved, split_k_mode="none", split_k=1, tile_scheduler=TileScheduler.persistent))


def _cooperative_1x2(epilogue: Epilogue, tile: tuple[int, int, int]) -> KernelConfig:
    """The compute-bound winners' kernel shape: persistent cooperative, TMA epilogue, a 1x2 cluster."""
    return KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, epilogue, tile, cluster=(1, 2),
                        schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.persistent)


def test_lean_consumer_replaces_cutlasss_consumer_loop_only_where_it_stands_alone() -> None:
    """lean_consumer names its kernel `_lc` and wraps the builder's mainloop in the unrolled consumer
    loop; the default kernel keeps CUTLASS's collective, and the other mainloop wrappers refuse it."""
    plain = _cooperative_1x2(Epilogue.none, (256, 128, 64))
    lean = replace(plain, lean_consumer=True)
    assert lean.variant_name == plain.variant_name.replace("_persistent_", "_persistent_lc_")
    source = render(lean)
    assert "using CollectiveMainloop = kiln_mainloop::LeanConsumer<BuiltMainloop>;" in source
    assert "LeanConsumer" not in render(plain)
    for bad in ({"l2_prefetch": 8}, {"phase_clock": True}, {"tile": (64, 88, 128), "cluster": (1, 1)},
                {"family": Family.sm80_tensorop, "warp": (64, 64, 32), "stages": 3}):
        with pytest.raises(R.UnsupportedConfig):
            render(replace(lean, **bad))


def test_split_n_warpgroups_build_their_own_tiled_mma_and_one_atom_epilogue_subtiles() -> None:
    """wg_split_n names its kernel `_wn`, lays the two consumer warpgroups side by side along N and
    gives the TMA epilogue 64-row subtiles the whole tile wide; tiles and options it cannot build are
    refused before NVRTC sees them."""
    plain = _cooperative_1x2(Epilogue.bias, (192, 128, 64))
    split = replace(plain, wg_split_n=True)
    assert split.variant_name == plain.variant_name.replace("_persistent_", "_persistent_wn_")
    source = render(split)
    assert "Shape<_192, _64, _64>" in source and "Layout<Shape<_1, _2, _1>>{}" in source
    assert "using Tile = Shape<_64, _128>;" in source
    assert "SplitNTiledMma" not in render(replace(plain, tile=(256, 128, 64)))
    assert "tmad1" in replace(split, epilogue_store_stages=1).variant_name
    assert "Layout_K_SW64_Atom" not in source and "Layout_K_SW64_Atom" in render(replace(split, tile=(192, 192, 64)))
    for bad in ({"schedule": Schedule.pingpong}, {"tile": (64, 128, 64)}, {"tile": (160, 128, 64)},
                {"tile": (192, 160, 64)}, {"epilogue_schedule": EpilogueSchedule.nosmem}, {"lean_consumer": True},
                {"warp_stores": True}, {"epilogue_tile_n": 64}, {"tile_scheduler": TileScheduler.streamk},
                {"swap_ab": True}):
        with pytest.raises(R.UnsupportedConfig):
            render(replace(split, **bad))
