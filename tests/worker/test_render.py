"""Rendering: every token a template receives comes from a whitelist table, for any accepted spec."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from worker.kernels import render as R
from worker.kernels.hardware import hardware_for
from worker.kernels.problem import GemmProblem
from worker.kernels.prune import prune
from worker.kernels.render import render, template_tokens
from worker.kernels.space import full_space

WHITELIST = (set(R.ELEMENT.values()) | set(R.LAYOUT.values()) | set(R.ACTIVATION_FN.values()) | set(R.SCHEDULE.values())
             | set(R.EPILOGUE_SCHEDULE.values()) | set(R.TILE_SCHEDULER.values()) | {""})
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
        assert f"_{cfg.tile[0]}" in source or f"<{cfg.tile[0]}," in source


def test_residual_epilogues_render_for_the_families_that_can_fuse_them() -> None:
    spec = GemmSpec(m=4096, n=4096, k=4096, epilogue="bias_residual_add_relu")
    problem = GemmProblem.from_spec(spec)
    kept = prune(full_space(problem, "sm_90a"), problem, hardware_for("sm_90a"), limit=6).kept
    assert kept and all(c.epilogue_schedule.value == "tma" for c in kept)
    src = render(kept[0])
    assert "LinCombPerColBiasEltAct" in src and "ReLu" in src and "ElementC = Element;" in src
