"""What the pruning rules know about each architecture (datasheet figures, used as limits)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hardware:
    arch: str
    sm_count: int
    smem_per_block: int  # bytes a block may opt into (dynamic shared memory limit)
    regs_per_thread: int
    max_threads_per_block: int
    has_wgmma: bool
    has_tma: bool
    max_cluster: int
    # CTAs of four-CTA clusters the GPU holds at once (a cluster lives in one GPC), 0 where not
    # measured: the 132-SM H200 holds 30 such clusters, 120 CTAs, at any block size up to a full SM
    # (bench/results/cluster_occupancy_h200_20261202_session16_c.json, cuOccupancyMaxActiveClusters);
    # two-CTA clusters fill all 132 SMs.
    cluster4_ctas: int = 0

    def resident_ctas(self, cluster_size: int) -> int:
        """How many CTAs of a one-CTA-per-SM kernel with this cluster size run at once. Unmeasured
        sizes take CUTLASS's own estimate (18-SM GPCs, tile_scheduler_params.h)."""
        if cluster_size <= 2:
            return self.sm_count
        if cluster_size == 4 and self.cluster4_ctas:
            return min(self.cluster4_ctas, self.sm_count)
        full, rest = divmod(self.sm_count, 18)
        return full * (18 - 18 % cluster_size) + rest - rest % cluster_size


HARDWARE: dict[str, Hardware] = {
    # A100: 164 KB usable shared memory per block (of 192 KB combined L1/smem), 108 SMs.
    "sm_80": Hardware("sm_80", 108, 163 * 1024, 255, 1024, False, False, 1),
    "sm_86": Hardware("sm_86", 84, 99 * 1024, 255, 1024, False, False, 1),
    "sm_89": Hardware("sm_89", 128, 99 * 1024, 255, 1024, False, False, 1),
    # H100/H200 SXM: 227 KB opt-in shared memory per block, 132 SMs, clusters up to 8 portable.
    "sm_90": Hardware("sm_90", 132, 227 * 1024, 255, 1024, False, True, 8, cluster4_ctas=120),
    "sm_90a": Hardware("sm_90a", 132, 227 * 1024, 255, 1024, True, True, 8, cluster4_ctas=120),
}


def hardware_for(arch: str, sm_count: int | None = None) -> Hardware:
    """The arch's limits, with the real SM count when the worker knows it (an H100 PCIe has 114)."""
    hw = HARDWARE[arch]
    if sm_count is not None and sm_count != hw.sm_count:
        # another SM count is another GPC layout: its four-CTA residency is not the H200's
        return Hardware(hw.arch, sm_count, hw.smem_per_block, hw.regs_per_thread, hw.max_threads_per_block,
                        hw.has_wgmma, hw.has_tma, hw.max_cluster)
    return hw
