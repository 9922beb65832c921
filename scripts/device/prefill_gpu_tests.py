"""Compile, on a CPU host, every kernel the GPU tests and `kiln bench overhead` build (the tests'
own config constants; `--runtime-only`: the launch runtime's tests and the overhead bench),
into $KILN_DATA_DIR's compile cache, so a device run spends its minutes on
the GPU (`tar` the cache into .devcarry/cache.tgz afterwards); `--cluster-pairs` adds what
`kiln bench pairs --clusters` times, `--cluster-split-pairs` what `--cluster-split` times
(`--only-cluster-split`: those and the cluster split-K GPU tests' kernels, nothing else)."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.launch_overhead import CFG as OVERHEAD_CFG  # noqa: E402
from service.specs.conv2d import Conv2dSpec  # noqa: E402
from service.specs.epilogues import Epilogue  # noqa: E402
from tests.gpu.test_conv_gpu import CASES, FOLDED_STEM, SM90_CONV, kept_configs, persistent_configs  # noqa: E402
from tests.gpu.test_gpu_tuning import (  # noqa: E402
    ACTIVATION_MATH,
    BIG_CLUSTER_KERNELS,
    CLUSTER_SPLIT,
    DECODE_CLUSTERS,
    PADDED,
    PHASE_CLOCKED,
    SINGLE,
    SM80_NONE,
    SM90_BIAS,
    STREAMK,
    STREAMK_MEMSET,
    SWAPPED_SINGLE_WARP_STORES,
    TALL_SWAPPED,
    TUNED,
    WARP_STORES,
)
from tests.gpu.test_torch_runtime import CFG, CLUSTERED, PARALLEL, SWAPPED  # noqa: E402
from tests.gpu.test_torch_runtime import SINGLE as RUNTIME_SINGLE  # noqa: E402
from tests.gpu.test_torch_runtime import STREAMK as RUNTIME_STREAMK  # noqa: E402
from worker.kernels.compiler import Compiler  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402
from worker.kernels.hardware import hardware_for  # noqa: E402
from worker.selection import select_gemm  # noqa: E402


def runtime_test_configs() -> list[KernelConfig]:
    """What `kiln bench overhead` and tests/gpu/test_torch_runtime.py launch."""
    return [OVERHEAD_CFG, CFG, CLUSTERED, *SWAPPED.values(), *PARALLEL.values(), *RUNTIME_SINGLE.values(),
            RUNTIME_STREAMK]


def gpu_test_configs() -> list[KernelConfig]:
    configs = [*runtime_test_configs(), SM90_BIAS, SM80_NONE, PADDED, SM90_CONV, STREAMK, STREAMK_MEMSET, SWAPPED_SINGLE_WARP_STORES,
               *BIG_CLUSTER_KERNELS.values(), *(cfg for cfg, _ in WARP_STORES.values()),
               *(cfg for cfg, _ in CLUSTER_SPLIT.values()), *(cfg for cfg, _ in DECODE_CLUSTERS.values()), *(cfg for cfg, _ in SINGLE.values()), *(cfg for cfg, _ in ACTIVATION_MATH.values()),
               *(cfg for cfg, _ in PHASE_CLOCKED.values()),
               TALL_SWAPPED, replace(TALL_SWAPPED, epilogue=Epilogue.none),
               *(replace(TALL_SWAPPED, cluster=(2, 1), warp_stores=True, epilogue=e) for e in (Epilogue.bias_gelu, Epilogue.bias, Epilogue.silu, Epilogue.none))]
    hw = hardware_for("sm_90a", 132)
    configs += [cfg for spec in TUNED for cfg in select_gemm(spec, "sm_90a", hw, 3).report.kept]
    for case in CASES:
        configs += kept_configs(Conv2dSpec.model_validate({"op": "conv2d", **case}))
    configs += [cfg for _, cfg in persistent_configs()]
    configs.append(replace(FOLDED_STEM, epilogue=Epilogue.bias_relu))
    return configs

if __name__ == "__main__":
    cache = Path(os.environ["KILN_DATA_DIR"]) / "compile-cache"
    configs = runtime_test_configs() if "--runtime-only" in sys.argv[1:] else gpu_test_configs()
    if "--cluster-pairs" in sys.argv[1:]:  # and what `kiln bench pairs --clusters` times
        from bench.gemm_pairs import cluster_pairs
        configs += [cfg for _, twins in cluster_pairs().values() for cfg in twins]
    only_cluster_split = "--only-cluster-split" in sys.argv[1:]
    if only_cluster_split:  # just the cluster split-K kernels (and their pairs' winners)
        configs = [cfg for cfg, _ in CLUSTER_SPLIT.values()] + [PARALLEL["cluster_swapped"]]
    if only_cluster_split or "--cluster-split-pairs" in sys.argv[1:]:  # what `kiln bench pairs --cluster-split` times
        from bench.gemm_pairs import cluster_split_pairs
        configs += [cfg for _, twins in cluster_split_pairs().values() for cfg in twins]
    configs = list(dict.fromkeys(cfg.compiled for cfg in configs))
    outs = Compiler(cache, jobs=os.cpu_count()).compile_all(configs, target_arch="sm_90a")
    for o in outs:
        print(("ok  " if o.ok else "FAIL") + f" {o.config.name}")
    sys.exit(0 if all(o.ok for o in outs) else 1)
