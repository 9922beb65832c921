"""The launch description stored with every kernel (GET /kernel/{sha256}/meta → "launch").

It says how to call the cubin's params builder, how to read what the builder reports, which
pointers to patch per call and which TMA descriptors to encode on the host.
"""

from __future__ import annotations

from typing import Any

from worker.kernels.config import Family, KernelConfig, TileScheduler
from worker.kernels.render import (
    activation_of,
    queries_cluster_occupancy,
    self_clearing_workspace,
    tma_operands,
    waits_on_prior_grid,
)

META_FIELDS = {"params_size": 0, "grid": 1, "threads": 4, "smem": 5, "cluster": 6, "workspace": 8, "num_tma": 9,
               "family": 10, "reduce_offset": 11, "reduce_grid": 12, "reduce_threads": 13, "scratch": 14,
               "workspace_clear": 15, "tma": 16, "tma_stride": 19}
META_LEN = 16 + 19 * 4

BUILDER_ARGS = {
    Family.sm80_tensorop: ["M:i32", "N:i32", "K:i32", "A:ptr", "B:ptr", "C:ptr", "D:ptr", "bias:ptr", "alpha:f32",
                           "beta:f32", "sm_count:i32", "split_k:i32", "workspace:ptr", "params_out:ptr", "meta_out:ptr"],
    Family.sm90_tma: ["M:i32", "N:i32", "K:i32", "A:ptr", "B:ptr", "C:ptr", "D:ptr", "bias:ptr", "alpha:f32",
                      "beta:f32", "sm_count:i32", "raster:i32", "max_swizzle:i32", "splits:i32", "decomposition:i32",
                      "workspace:ptr", "params_out:ptr", "meta_out:ptr"],
    Family.sm80_conv_fprop: ["n:i32", "h:i32", "w:i32", "c:i32", "k:i32", "r:i32", "s:i32", "p:i32", "q:i32",
                             "pad_h:i32", "pad_w:i32", "stride_h:i32", "stride_w:i32", "dilation_h:i32",
                             "dilation_w:i32", "A:ptr", "B:ptr", "C:ptr", "D:ptr", "bias:ptr", "alpha:f32", "beta:f32",
                             "split_k:i32", "workspace:ptr", "params_out:ptr", "meta_out:ptr"],
}
# The weight-streaming kernel takes the 2.x builder's arguments (split_k: its cluster size along K).
BUILDER_ARGS[Family.sm90_skinny] = BUILDER_ARGS[Family.sm80_tensorop]
# sm90 convs also take what a persistent grid needs (the non-persistent kernel ignores it).
BUILDER_ARGS[Family.sm90_conv_fprop] = [
    *BUILDER_ARGS[Family.sm80_conv_fprop][:22], "sm_count:i32", "raster:i32", "max_swizzle:i32",
    *BUILDER_ARGS[Family.sm80_conv_fprop][22:]]
# Where the builder's non-operand arguments come from (worker/runtime/launcher.py: RASTER_CODE,
# DECOMPOSITION_CODE hold the codes).
BUILDER_VALUES = {
    "sm_count": "the device's SM count",
    "raster": "runtime.raster: heuristic 0, along_m 1, along_n 2",
    "max_swizzle": "runtime.max_swizzle",
    "splits": "runtime.split_k (split_k: the same)",
    "decomposition": "runtime.decomposition: heuristic 0 (also when absent), streamk 1",
    "max_active_clusters": "only kernels with clusters of more than two CTAs: build once with 0 (the grid is then "
                           "CUTLASS's estimate), read threads, smem and cluster from meta, ask the driver how many "
                           "such clusters fit at once (cuOccupancyMaxActiveClusters), build again with that count",
    "A B C D bias workspace": "sentinel addresses while building (see pointer_slots), patched per call",
    "params_out": "a device buffer of at least 32 KiB, where the builder writes Params",
    "meta_out": "params_out + 32768: meta_len int64s, zeroed before the builder runs (a field a builder "
                "does not write, e.g. workspace_clear in a cubin built before it existed, reads 0)",
}
ENTRY = {Family.sm80_tensorop: "kiln_gemm", Family.sm90_tma: "kiln_gemm", Family.sm80_conv_fprop: "kiln_conv2d_fprop",
         Family.sm90_conv_fprop: "kiln_conv2d_fprop", Family.sm90_skinny: "kiln_gemm"}


def builder_args(cfg: KernelConfig) -> list[str]:
    """The builder's signature: its family's, plus the co-resident cluster count where the kernel
    sizes its persistent grid from it (render.queries_cluster_occupancy)."""
    args = list(BUILDER_ARGS[cfg.family])
    if queries_cluster_occupancy(cfg):
        args.insert(args.index("decomposition:i32") + 1, "max_active_clusters:i32")
    return args


def l2_promotion_name(size: int) -> str:
    """The CUtensorMapL2promotion suffix (CU_TENSOR_MAP_L2_PROMOTION_<name>) for a promotion in bytes."""
    return f"L2_{size}B" if size else "NONE"


def launch_meta(cfg: KernelConfig, *, conv_as_gemm: bool = False) -> dict[str, Any]:
    """`conv_as_gemm`: a GEMM kernel that serves a pointwise (1x1, stride 1) Conv2d."""
    parts = cfg.epilogue.parts
    return {
        "abi": 1,
        "entry": ENTRY[cfg.family],
        "builder": "kiln_build_params",
        "builder_args": builder_args(cfg),
        "builder_values": BUILDER_VALUES,
        "meta_len": META_LEN,
        "meta_fields": META_FIELDS,
        "tma_operands": tma_operands(cfg),
        "tma_encode": {"data_type": "UINT16", "interleave": "NONE", "l2_promotion": l2_promotion_name(cfg.l2_promotion),
                       "oob_fill": "NONE"},
        "params_by_value": True,
        "pointer_slots": "found per shape: build with sentinel pointers, scan Params for them (see worker/runtime/launcher.py)",
        "workspace": "meta[workspace] bytes, of which those from offset meta[workspace_clear] on are zeroed before "
                     "each launch (stream-K: its barriers, after the partial tiles it never reads unwritten), "
                     "then meta[scratch] bytes (not zeroed)",
        **({"workspace_self_clearing": True,
            "workspace_self_clearing_rule": "the kernel leaves the zeroed part zero when it completes, so no memset "
                                            "before a launch: give each shape its own workspace, zero it once when "
                                            "it is allocated, and never share it with another kernel or shape "
                                            "(their partial tiles may lie where this one keeps its barriers)"}
           if self_clearing_workspace(cfg) else {}),
        "cluster_launch": cfg.family in (Family.sm90_tma, Family.sm90_conv_fprop, Family.sm90_skinny),
        "programmatic_dependent_launch": waits_on_prior_grid(cfg),
        "programmatic_dependent_launch_rule": "when true the entry may be launched with CU_LAUNCH_ATTRIBUTE_"
                                              "PROGRAMMATIC_STREAM_SERIALIZATION = 1: it waits on the previous grid "
                                              "before touching global memory, and its launch overlaps that grid's "
                                              "tail; never when false",
        "family": cfg.family.value,
        "dtype": cfg.dtype.value,
        "layout_a": cfg.layout_a.value,
        "layout_b": cfg.layout_b.value,
        "alignment": list(cfg.alignment),
        "epilogue": {"name": cfg.epilogue.value, "bias": parts.bias, "residual": parts.residual,
                     "activation": activation_of(cfg.epilogue).value,
                     "formula": "D = act(alpha*A@B + bias + beta*C)" if parts.residual else "D = act(alpha*A@B + bias)"},
        "runtime": {"raster": cfg.raster.value, "max_swizzle": cfg.max_swizzle, "split_k": cfg.split_k,
                    **({"decomposition": cfg.decomposition.value} if cfg.tile_scheduler is TileScheduler.streamk
                       else {})},
        **({"reduce": {
            "entry": "kiln_splitk_reduce",
            "rule": "after the entry, on the same stream: launch this kernel with meta[reduce_grid] x "
                    "meta[reduce_threads] threads, no cluster, its one by-value parameter being the bytes of the "
                    "patched Params buffer from offset meta[reduce_offset]",
            # it waits on the GEMM grid (griddepcontrol.wait) before reading the partials, so its launch
            # may overlap the GEMM's tail, as the GEMM's may overlap the kernel before it
            "programmatic_dependent_launch": waits_on_prior_grid(cfg),
        }} if cfg.split_k_mode == "parallel" else {}),
        **(_conv_contract(cfg) if cfg.is_conv else {}),
        **(_pointwise_contract() if conv_as_gemm else {}),
        **({"gemm_padding": {
            "pad_k_and_n_to": cfg.pad_kn,
            "rule": "zero-pad K (columns of A and W) and N (rows of W, the bias, columns of C) up to a multiple "
                    "of pad_k_and_n_to, pass the padded sizes to the builder, read D's first N columns",
        }} if cfg.pad_kn else {}),
    }


def plan_entry(cfg: KernelConfig, cubin_path: str, *, conv_as_gemm: bool = False) -> dict[str, Any]:
    """One candidate as the measurement process (worker/gpu_bench.py) reads it: where its cubin is
    and its launch contract."""
    launch = launch_meta(cfg, conv_as_gemm=conv_as_gemm)
    return {"name": cfg.name, "config": cfg.to_dict(), "cubin_path": cubin_path, "launch": launch,
            "runtime": launch["runtime"]}


def _pointwise_contract() -> dict[str, Any]:
    return {"conv": {
        "as_gemm": True, "activation_layout": "NHWC", "filter_layout": "KRSC", "output_layout": "NHWC",
        "pad_channels_to": 1,
        "gemm": "M = N*H*W, N = K, K = C: A = x as [N*H*W, C] row-major, B = w as [K, C], D = y as [N*H*W, K]",
    }}


def _conv_contract(cfg: KernelConfig) -> dict[str, Any]:
    """What a conv client must do to its tensors before launching (BOLT: layout and padding are
    transformed at the boundaries, once, not per kernel)."""
    return {"conv": {
        "activation_layout": "NHWC", "filter_layout": "KRSC", "output_layout": "NHWC",
        "pad_channels_to": cfg.pad_c or 1,
        "padding_rule": "zero-pad C of activations and filters up to a multiple of pad_channels_to; "
                        "pass the padded C to the builder",
        "space_to_depth": cfg.s2d or 1,
        "space_to_depth_rule": "when > 1 (b), before padding: zero-pad the activation by the conv's padding and "
                               "up to b*(P+R'-1) x b*(Q+S'-1) with R' = ceil(R/b), S' = ceil(S/b), fold each b x b "
                               "pixel block into channels (order: row in block, column in block, C); fold the "
                               "filter alike after zero-extending it to b*R' x b*S' taps; the kernel then runs a "
                               "stride-1, unpadded R' x S' conv over b*b*C channels with the same P x Q output "
                               "(worker/runtime/conv_transforms.py)",
        "builder_dims": "n h w c k r s p q pad_h pad_w stride_h stride_w dilation_h dilation_w of the convolution "
                        "the kernel runs (after space_to_depth; c = padded C)",
        "iterator": cfg.conv_iterator.value if cfg.is_2x else "tma_im2col",
        **({"input_transform": {
            "entry": "kiln_fold_input", "threads": 256, "vector": "cp",
            "args": ["x:ptr", "y:ptr", "n:i32", "h:i32", "w:i32", "c:i32", "ho:i32", "wo:i32", "cp:i32", "b:i32",
                     "pad_h:i32", "pad_w:i32"],
            "rule": "the padding and space_to_depth rules in one kernel of this cubin: x = the user's NHWC "
                    "activation (n, h, w, c), y = the kernel's (n, ho, wo, cp) with cp the padded channels; "
                    "b = space_to_depth with pad_h/pad_w the conv's padding and ho, wo the kernel's h, w; "
                    "b = 1 with no padding when only the channels are padded",
        }} if cfg.family is Family.sm90_conv_fprop else {}),
    }}
