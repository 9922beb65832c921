"""KernelConfig: hashable, serializable, named by what it is; launch-time fields don't change the cubin."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.config import (
    Decomposition,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Raster,
    Schedule,
    TileScheduler,
)

SM90 = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (128, 256, 64),
                    cluster=(2, 1), schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                    tile_scheduler=TileScheduler.persistent)
SM80 = KernelConfig(Family.sm80_tensorop, DType.bf16, Layout.col, Layout.row, Epilogue.relu, (128, 128, 32),
                    warp=(64, 64, 32), stages=4, swizzle=8, split_k_mode="serial", split_k=2)


@pytest.mark.parametrize("cfg", [SM90, SM80])
def test_round_trip_and_hash(cfg: KernelConfig) -> None:
    again = KernelConfig.from_dict(cfg.to_dict())
    assert again == cfg and hash(again) == hash(cfg) and again.name == cfg.name
    assert len({cfg, again}) == 1


def test_unknown_fields_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown"):
        KernelConfig.from_dict({**SM90.to_dict(), "tile_q": 3})


def test_names_identify_compiled_and_launch_time_parts() -> None:
    assert SM90.name == "sm90_f16_rc_t128x256x64_c2x1_cooperative_tma_persistent_a888_bias_gelu"
    raster = replace(SM90, raster=Raster.along_n, max_swizzle=4)
    assert raster.name != SM90.name and raster.variant_name == SM90.variant_name
    assert raster.compiled == SM90
    assert SM80.name.endswith("_k2") and SM80.compiled.split_k == 1
    assert SM80.threads == 128 and SM90.threads == 384
    # a pipeline depth other than CUTLASS's carve-out is a different cubin, and says so
    single = replace(SM90, schedule=Schedule.single, tile_scheduler=TileScheduler.none, stages=4)
    assert single.name == "sm90_f16_rc_t128x256x64_c2x1_single_tma_none_s4_a888_bias_gelu" and single.threads == 256


def test_every_launch_time_field_resets_to_its_default_in_the_compiled_identity() -> None:
    from dataclasses import fields

    launched = replace(SM90, raster=Raster.along_m, max_swizzle=8, split_k=3, decomposition=Decomposition.streamk,
                       pad_c=8, pad_kn=8, s2d=2, l2_promotion=256)
    assert launched.compiled == SM90
    defaults = {f.name for f in fields(SM90) if f.name in SM90.RUNTIME_FIELDS}
    assert defaults == set(SM90.RUNTIME_FIELDS)  # each names a real field


def test_l2_promotion_is_a_launch_time_field_the_contract_states() -> None:
    """One cubin for every promotion: the name says which, the compiled identity does not, and the
    launch contract tells a client's encoder what to pass."""
    from worker.runtime.launch_meta import launch_meta

    wide = replace(SM90, l2_promotion=256)
    assert wide.name == SM90.name + "_l2p256" and wide.compiled == SM90 and wide.variant_name == SM90.variant_name
    assert launch_meta(SM90)["tma_encode"]["l2_promotion"] == "L2_128B"
    assert launch_meta(wide)["tma_encode"]["l2_promotion"] == "L2_256B"
    assert launch_meta(replace(SM90, l2_promotion=0))["tma_encode"]["l2_promotion"] == "NONE"
