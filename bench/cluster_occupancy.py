"""`python -m bench.cluster_occupancy`: how many clusters of each stored winner's kernel the GPU
holds at once, and the persistent grid its builder then picks, under its own cluster and under
the four-CTA ones `kiln bench pairs --clusters` times (bench/gemm_pairs.py BIG_CLUSTERS).

A persistent kernel whose co-resident clusters cover fewer SMs than the plain grid loses those SMs
for the whole run; this separates that from the cost of multicast itself when a bigger cluster
times slower. Needs a GPU and the kernels compiled (it compiles what the cache lacks).
Writes bench/results/cluster_occupancy_<gpu>_<date>.json.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from bench.common import device_provenance, save_result
from bench.gemm_pairs import cluster_pairs
from worker.kernels.compiler import Compiler
from worker.runtime.launch_meta import plan_entry


def occupancy_rows(only: list[str] | None) -> list[dict[str, Any]]:
    import torch

    from worker.runtime.launcher import LoadedKernel

    pairs = {name: pair for name, pair in cluster_pairs().items() if not only or name in only}
    data = Path(os.environ.get("KILN_DATA_DIR", ".kiln"))
    compiler = Compiler(data / "compile-cache", jobs=os.cpu_count())
    configs = list(dict.fromkeys(c.compiled for _, twins in pairs.values() for c in twins))
    cubins = {o.config: o.cubin for o in compiler.compile_all(configs, target_arch="sm_90a") if o.ok}
    scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
    sm_count = torch.cuda.get_device_properties(0).multi_processor_count
    rows: list[dict[str, Any]] = []
    for name, (spec, twins) in pairs.items():
        for cfg in twins:
            cubin = cubins.get(cfg.compiled)
            if cubin is None:
                rows.append({"shape": name, "name": cfg.name, "error": "did not compile"})
                continue
            entry = plan_entry(cfg, "")
            kernel = LoadedKernel(cubin, entry["launch"])
            try:
                m, n = (spec.n, spec.m) if cfg.swap_ab else (spec.m, spec.n)
                p = kernel.prepare(m=spec.m, n=spec.n, k=spec.k, alpha=1.0, beta=0.0, sm_count=sm_count,
                                   stream=torch.cuda.current_stream().cuda_stream, scratch=scratch.data_ptr(),
                                   runtime=entry["runtime"])
                resident = kernel.max_active_clusters(p.cluster, p.threads, p.smem)
                ctas = p.grid[0] * p.grid[1] * p.grid[2]
                tiles = -(-m // cfg.tile[0]) * -(-n // cfg.tile[1])
                rows.append({"shape": name, "name": cfg.name, "cluster": list(p.cluster), "threads": p.threads,
                             "smem": p.smem, "resident_clusters": resident,
                             "resident_ctas": resident * p.cluster[0] * p.cluster[1], "grid": list(p.grid),
                             "grid_ctas": ctas, "tiles": tiles})
                print(f"{name:20s} {cfg.name:72s} cluster {p.cluster[0]}x{p.cluster[1]} smem {p.smem // 1024:3d} KB "
                      f"resident {resident:3d} clusters = {rows[-1]['resident_ctas']:3d} CTAs, grid {ctas:3d} "
                      f"for {tiles} tiles", flush=True)
            finally:
                kernel.unload()
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    from worker.device import visible_gpus

    [dev, *_] = visible_gpus()
    rows = occupancy_rows(args.only)
    payload = {**device_provenance(dev), "benchmark": "cluster_occupancy", "rows": rows}
    print(save_result(payload, "cluster_occupancy", dev.gpu_name, args.out))


if __name__ == "__main__":
    main()
