"""Session 25, run L: which kernels cuBLAS runs (torch's F.linear) at each point of run B's K sweep.
A library's per-K slope means something only if its kernel stays the same along the sweep."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.common import provenance  # noqa: E402
from bench.gemm_suite import cublas_kernels  # noqa: E402

SWEEP = {"llama7b.o_proj": (2048, (2048, 4096, 8192), (1024, 2048, 4096, 8192)),
         "bert-large.ffn2": (4096, (1024,), (1024, 2048, 4096, 8192)),
         "bert-base.attn_out": (4096, (768,), (384, 768, 1536, 3072)),
         "square.1024": (1024, (1024,), (512, 1024, 2048, 4096))}


def main(out: Path) -> None:
    import torch

    rows = []
    for name, (m, ns, ks) in SWEEP.items():
        for n in ns:
            for k in ks:
                kernels = cublas_kernels({"m": m, "n": n, "k": k})
                rows.append({"sweep": name, "m": m, "n": n, "k": k, "cublas_kernels": kernels})
                print(f"{name:20s} N={n:5d} K={k:5d} {' + '.join(kernels)}", flush=True)
    gpu = torch.cuda.get_device_properties(0)
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True).stdout.strip().splitlines()[0]
    info = {"name": gpu.name, "driver": driver, "cuda": torch.version.cuda, "sm_count": gpu.multi_processor_count}
    payload = {**provenance(info), "benchmark": "cublas_kernels",
               "rows": rows}
    out.write_text(json.dumps(payload, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
