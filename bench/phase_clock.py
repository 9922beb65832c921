"""Where a kernel's time goes, phase by phase: stored winners rebuilt with Kiln's phase clock
(KernelConfig.phase_clock, templates/phase_clock.cuh.j2), each CTA stamping %globaltimer at kernel
entry, its first mainloop, its first stage's data, its last mainloop's completion and its exit.

Event timing gives one number per launch, and the K sweep (session 25 run B) split the gap to cuBLAS
into a fixed part and a per-K rate but could not say where the fixed part sits. The stamps can:
launch skew across the grid, the prologue before the first mainloop, the pipeline fill, the tail
after the last wgmma. Event time minus the stamped span is what lies outside the kernel body
(launch, grid start-up, drain). The clocked kernel is verified first and timed beside the plain
one and the library, so the instrument's own cost is on record.

    python -m bench.phase_clock --result bench/results/gemm_h200_…_search.json --only llama7b.o_proj …
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import device_provenance, save_result
from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from worker.kernels.config import KernelConfig

SLOTS = ("entry", "mainloop", "first_data", "mainloop_done", "exit", "mainloops", "sm", "first_load", "load_init",
         "mma_cycles", "wait_cycles")
ALL_ONES = (1 << 64) - 1
LAUNCHES = 40


def decode(raw: list[int], ctas: int) -> list[dict[str, int]]:
    """One launch's buffer: per CTA the stamps in ns (maxima were stored complemented), its tile
    count (counted up from all-ones) and SM; CTAs that never stamped an edge are left out."""
    rows = []
    for cta in range(ctas):
        s = raw[cta * len(SLOTS):(cta + 1) * len(SLOTS)]
        if s[0] == ALL_ONES:
            continue
        rows.append({"entry": s[0], "mainloop": s[1], "first_data": s[2], "mainloop_done": ALL_ONES ^ s[3],
                     "exit": ALL_ONES ^ s[4], "mainloops": (s[5] + 1) % (1 << 64), "sm": s[6], "first_load": s[7],
                     "load_init": s[8], "mma_cycles": (s[9] + 1) % (1 << 64), "wait_cycles": (s[10] + 1) % (1 << 64)})
    return rows


def phases(rows: list[dict[str, int]]) -> dict[str, float]:
    """One launch's phases in µs, each CTA measured from its own entry, medians over CTAs; the
    span and the skews are over the whole grid."""
    t0 = min(r["entry"] for r in rows)
    busy = [r for r in rows if r["mainloops"]]

    def med(key: str, start: str = "entry") -> float:
        return statistics.median((r[key] - r[start]) / 1000 for r in busy) if busy else 0.0

    return {
        "ctas": len(rows), "ctas_with_mainloops": len(busy),
        "span_us": (max(r["exit"] for r in rows) - t0) / 1000,
        "entry_skew_us": (max(r["entry"] for r in rows) - t0) / 1000,
        "to_load_init_us": med("load_init"), "to_first_load_us": med("first_load"),
        "to_mainloop_us": med("mainloop"), "to_first_data_us": med("first_data"),
        "mainloop_us": med("mainloop_done", "first_data"), "tail_us": med("exit", "mainloop_done"),
        "last_mainloop_done_us": (max(r["mainloop_done"] for r in busy) - t0) / 1000 if busy else 0.0,
        "mainloops_per_cta": statistics.median(r["mainloops"] for r in busy) if busy else 0,
        "mainloops": sum(r["mainloops"] for r in rows),
        # the consumers' share of their mma() cycles spent waiting on a stage's data
        "data_wait_share": statistics.median(r["wait_cycles"] / r["mma_cycles"] for r in busy if r["mma_cycles"]) if busy else 0.0,
    }


def summarize_phases(launches: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(p[k] for p in launches) for k in launches[0]}


def clock_launches(c: Any, sets: list[Any], launches: int = LAUNCHES) -> list[dict[str, float]]:
    """Launch after launch, the stamp buffer cleared before each and copied out after it, all
    queued on the stream (the copies sit between launches, never inside one)."""
    import torch
    from cuda.bindings import driver as cu

    from worker import gpu_bench
    from worker.runtime.launcher import check

    ptr, size = check(cu.cuModuleGetGlobal(c.kernel.module, b"kiln_phase_clock"))
    history = torch.empty((launches, size // 8), dtype=torch.int64, device="cuda")
    fns = [gpu_bench._bind(c, o) for o in sets]
    for f in fns[:3]:
        f()
    torch.cuda.synchronize()
    stream = torch.cuda.current_stream().cuda_stream
    for i in range(launches):
        check(cu.cuMemsetD8Async(ptr, 0xFF, size, stream))
        fns[i % len(fns)]()
        check(cu.cuMemcpyDtoDAsync(history[i].data_ptr(), ptr, size, stream))
    torch.cuda.synchronize()
    grid = c.prepared(c.problem.launch_shape(sets[0], c.entry["config"])).grid
    ctas = grid[0] * grid[1] * grid[2]
    out = []
    for row in history.cpu().tolist():
        out.append(phases(decode([v % (1 << 64) for v in row], ctas)))
    return out


def measure(step: Any, name: str, spec: GemmSpec, winner: KernelConfig) -> dict[str, Any]:
    """The winner and its clocked twin compiled, the twin verified, both and the library timed
    interleaved, then the twin's stamps over LAUNCHES launches."""
    import torch

    from worker import gpu_bench
    from worker.gpu_step import plan_epilogue
    from worker.runtime.launch_meta import plan_entry

    clocked = replace(winner, phase_clock=True)
    outcomes = step.compiler.compile_all([winner.compiled, clocked.compiled], target_arch="sm_90a")
    entries = {}
    for cfg, o in zip((winner, clocked), outcomes, strict=True):
        assert o.ok, (cfg.variant_name, o.error)
        path = step.data_dir / "phase_clock" / f"{cfg.variant_name}.cubin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(o.cubin or b"")
        entries[cfg.name] = plan_entry(cfg, str(path))
    prob = gpu_bench.Problem(spec.model_dump(mode="json"), plan_epilogue(spec))  # as the tuner measures it
    scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    stream = torch.cuda.current_stream().cuda_stream
    cands = {key: gpu_bench.Candidate(e, prob, sms, stream, scratch.data_ptr()) for key, e in entries.items()}
    ok, reason, err = gpu_bench.verify(cands[clocked.name], prob)
    if not ok:
        return {"name": name, "config": clocked.name, "error": f"the clocked kernel failed verification: {reason}"}
    sets = gpu_bench.rotating_sets(prob)
    groups = {key: [gpu_bench._bind(c, o) for o in sets] for key, c in cands.items()}
    groups["library"] = [list(prob.library(o).values())[-1] for o in sets]  # the fused path where there is one
    one = torch.zeros(1, device="cuda")
    groups["empty"] = [one.zero_]  # what event timing charges any launch: one CTA that writes one word
    gpu_bench.settle(groups["library"])
    timed = gpu_bench.time_interleaved(groups, 30)
    stamps = clock_launches(cands[clocked.name], sets)
    labels = {winner.name: "kiln", clocked.name: "kiln_clocked"}
    row: dict[str, Any] = {
        "name": name, "m": spec.m, "n": spec.n, "k": spec.k, "epilogue": spec.epilogue.value, "winner": winner.name,
        "max_error": err, "event_us": {labels.get(key, key): t["median_us"] for key, t in timed.items()},
        "phases": summarize_phases(stamps), "launches": stamps}
    row["outside_span_us"] = row["event_us"]["kiln_clocked"] - row["phases"]["span_us"]
    for c in cands.values():
        c.kernel.unload()
    return row


def print_row(r: dict[str, Any]) -> None:
    if "error" in r:
        print(f"{r['name']:20s} {r['error']}")
        return
    e, p = r["event_us"], r["phases"]
    print(f"{r['name']:20s} events: kiln {e['kiln']:7.2f} clocked {e['kiln_clocked']:7.2f} library {e['library']:7.2f} "
          f"empty {e['empty']:5.2f} µs | span {p['span_us']:7.2f} (outside {r['outside_span_us']:5.2f}) "
          f"skew {p['entry_skew_us']:5.2f} to load_init {p['to_load_init_us']:5.2f} to load {p['to_first_load_us']:5.2f} "
          f"to mainloop {p['to_mainloop_us']:5.2f} to data {p['to_first_data_us']:5.2f} "
          f"mainloop {p['mainloop_us']:7.2f} (waiting {p['data_wait_share']:.0%}) tail {p['tail_us']:5.2f} "
          f"mainloops {p['mainloops_per_cta']}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--result", type=Path, required=True, help="a stored `kiln bench gemm` result: its winners")
    p.add_argument("--only", nargs="+", help="shape names (default: every shape the result holds, in its order)")
    p.add_argument("--unfused", action="store_true",
                   help="also each fused winner with its epilogue taken out, on the same shape (where a fusion's cost goes)")
    p.add_argument("--out", type=Path)
    args = p.parse_args()
    from worker.gpu_step import GpuTuningStep

    shapes = {r["name"]: r for r in json.loads(args.result.read_text())["shapes"]}
    step = GpuTuningStep(0)
    rows = []
    try:
        for name in args.only or list(shapes):
            r = shapes[name]
            spec = GemmSpec(m=r["m"], n=r["n"], k=r["k"], dtype=r.get("dtype", "f16"), epilogue=r["epilogue"])
            winner = KernelConfig.from_dict(r["winner"])
            rows.append(measure(step, name, spec, winner))
            print_row(rows[-1])
            if args.unfused and winner.epilogue is not Epilogue.none:
                bare = spec.model_copy(update={"epilogue": Epilogue.none})
                rows.append(measure(step, f"{name}.none", bare, replace(winner, epilogue=Epilogue.none)))
                print_row(rows[-1])
    finally:
        step.close()
    payload = {**device_provenance(step.device()), "benchmark": "phase_clock", "source": str(args.result), "rows": rows}
    print(json.dumps({"saved": str(save_result(payload, "phase_clock", step.device().gpu_name, args.out))}))


if __name__ == "__main__":
    main()
