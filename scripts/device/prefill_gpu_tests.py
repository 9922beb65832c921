"""Compile, on a CPU host, every kernel the GPU tests and `kiln bench overhead` build, into $KILN_DATA_DIR's compile cache, so a
device run spends its minutes on the GPU (`tar` the cache into .devcarry/cache.tgz afterwards)."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.launch_overhead import CFG as OVERHEAD_CFG  # noqa: E402
from service.specs.conv2d import Conv2dSpec  # noqa: E402
from service.specs.epilogues import Epilogue  # noqa: E402
from service.specs.gemm import DType, Layout  # noqa: E402
from tests.gpu.test_conv_gpu import CASES  # noqa: E402
from tests.gpu.test_gpu_tuning import SM80_NONE, SM90_BIAS, TUNED  # noqa: E402
from tests.gpu.test_torch_runtime import CFG  # noqa: E402
from worker.kernels.compiler import Compiler  # noqa: E402
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig  # noqa: E402
from worker.kernels.conv_problem import ConvProblem  # noqa: E402
from worker.kernels.hardware import hardware_for  # noqa: E402
from worker.kernels.prune_conv import prune_conv  # noqa: E402
from worker.kernels.space import full_conv_space  # noqa: E402
from worker.selection import select_gemm  # noqa: E402


def gpu_test_configs() -> list[KernelConfig]:
    configs = [OVERHEAD_CFG, CFG, replace(CFG, cluster=(2, 1))]
    configs += [replace(CFG, epilogue=Epilogue(e), tile=(64, 16, 128), epilogue_schedule=EpilogueSchedule(s), swap_ab=True)
                for e, s in (("bias_gelu", "tma"), ("bias", "nosmem"), ("none", "nosmem"))]
    configs += [SM90_BIAS, SM80_NONE, replace(SM90_BIAS, epilogue_schedule=EpilogueSchedule.tma)]
    hw = hardware_for("sm_90a", 132)
    configs += [cfg for spec in TUNED for cfg in select_gemm(spec, "sm_90a", hw, 3).report.kept]
    configs.append(KernelConfig(Family.sm90_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 128, 64)))
    for case in CASES:
        cp = ConvProblem.from_spec(Conv2dSpec.model_validate({"op": "conv2d", **case}))
        configs += prune_conv(full_conv_space(cp, "sm_90a"), cp, hardware_for("sm_90a"), limit=2).kept
    return configs


if __name__ == "__main__":
    cache = Path(os.environ["KILN_DATA_DIR"]) / "compile-cache"
    outs = Compiler(cache, jobs=os.cpu_count()).compile_all(gpu_test_configs(), target_arch="sm_90a")
    for o in outs:
        print(("ok  " if o.ok else "FAIL") + f" {o.config.name}")
    sys.exit(0 if all(o.ok for o in outs) else 1)
