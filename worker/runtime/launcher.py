"""Launch a Kiln cubin from raw device pointers.

Per shape, once: run the cubin's one-thread `kiln_build_params` kernel with *sentinel* pointers
(distinct values far apart that nothing dereferences), read back the Params bytes and the launch
geometry, and find every 8-byte word that equals a sentinel plus a small offset: those are the
pointer slots. Per call, on the host only: copy the Params template, write the real pointers into
the slots, encode the TMA descriptors (`cuTensorMapEncodeTiled`) for the real pointers, launch.
No device round trip per call.
"""

from __future__ import annotations

import ctypes
import os
import struct
from dataclasses import dataclass, field
from typing import Any

from cuda.bindings import driver as cu

from worker.runtime import driver_launch

# Programmatic dependent launch for kernels whose contract allows it (read once, not per call);
# KILN_PDL=0 turns it off everywhere: a profiler or graph tool that mishandles it, or an A/B timing.
PDL_ALLOWED = os.environ.get("KILN_PDL", "1") != "0"

SENTINEL_BASE = 0x0000_5A00_0000_0000
SENTINEL_SPAN = 1 << 36  # 64 GiB between sentinels: room for derived pointers (workspace regions)
POINTERS = ("A", "B", "C", "D", "bias", "workspace")
# The builder's integer codes for the contract's runtime values (templates/gemm_sm90.cu.j2)
RASTER_CODE = {"heuristic": 0, "along_m": 1, "along_n": 2}
DECOMPOSITION_CODE = {"heuristic": 0, "streamk": 1}  # stream-K kernels: CUTLASS's choice, or stream-K forced
SENTINELS = {name: SENTINEL_BASE + (i + 1) * SENTINEL_SPAN for i, name in enumerate(POINTERS)}


class CudaError(RuntimeError):
    pass


def check(result: Any) -> Any:
    err = result[0] if isinstance(result, tuple) else result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, msg = cu.cuGetErrorString(err)
        raise CudaError(f"{err.name}: {msg.decode() if msg else ''}")
    if isinstance(result, tuple):
        return result[1] if len(result) == 2 else result[1:]
    return None


_CTYPES = {"i32": ctypes.c_int, "f32": ctypes.c_float, "ptr": ctypes.c_void_p}
_SWIZZLE = {0: "CU_TENSOR_MAP_SWIZZLE_NONE", 1: "CU_TENSOR_MAP_SWIZZLE_32B", 2: "CU_TENSOR_MAP_SWIZZLE_64B",
            3: "CU_TENSOR_MAP_SWIZZLE_128B"}


@dataclass
class TmaDesc:
    operand: str
    offset: int
    rank: int
    swizzle: int
    dims: list[int]
    strides: list[int]
    box: list[int]
    im2col: Im2colRecord | None = None  # set for im2col descriptors (sm90 conv): encoded from the record


IM2COL_MAGIC = 0x4332494B  # "KI2C", written by Kiln's NVRTC overlay of copy_traits_sm90_im2col.hpp


@dataclass
class Im2colRecord:
    """The arguments of cuTensorMapEncodeIm2col, as CUTLASS computed them on the device (the
    overlay writes them into the descriptor's 128 bytes; layout in worker/kernels/overlay.py)."""

    rank: int
    swizzle_bits: int
    swizzle_base: int
    l2promo: int
    oobfill: int
    dims: list[int]
    strides: list[int]  # byte strides of dims 1..rank-1
    lower: list[int]
    upper: list[int]
    channels_per_pixel: int
    pixels_per_column: int
    element_strides: list[int]

    @classmethod
    def parse(cls, raw: bytes) -> Im2colRecord:
        w = struct.unpack_from("<32I", raw)
        if w[0] != IM2COL_MAGIC:
            raise CudaError("im2col TMA record missing: the cubin was not built with Kiln's NVRTC overlay")
        rank, flags = w[1], w[2]
        spatial = rank - 2
        strides = list(struct.unpack_from("<4Q", raw, 32))
        corners = struct.unpack_from("<6i", raw, 64)
        return cls(rank, flags & 0xFF, (flags >> 8) & 0xFF, (flags >> 16) & 0xFF, (flags >> 24) & 0xFF,
                   list(w[3:3 + rank]), strides[: rank - 1], list(corners[:spatial]), list(corners[3:3 + spatial]),
                   w[22], w[23], list(w[24:24 + rank]))


_L2 = {0: "CU_TENSOR_MAP_L2_PROMOTION_NONE", 1: "CU_TENSOR_MAP_L2_PROMOTION_L2_64B",
       2: "CU_TENSOR_MAP_L2_PROMOTION_L2_128B", 3: "CU_TENSOR_MAP_L2_PROMOTION_L2_256B"}
_OOB = {0: "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE", 1: "CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA"}


def encode_im2col(ptr: int, r: Im2colRecord) -> bytes:
    if r.swizzle_base:
        raise CudaError(f"im2col swizzle base {r.swizzle_base} is not supported by this launcher")
    tm = check(cu.cuTensorMapEncodeIm2col(
        cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT16, r.rank, ptr,
        [cu.cuuint64_t(x) for x in r.dims], [cu.cuuint64_t(x) for x in r.strides], r.lower, r.upper,
        r.channels_per_pixel, r.pixels_per_column, [cu.cuuint32_t(x) for x in r.element_strides],
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, getattr(cu.CUtensorMapSwizzle, _SWIZZLE[r.swizzle_bits]),
        getattr(cu.CUtensorMapL2promotion, _L2[r.l2promo]), getattr(cu.CUtensorMapFloatOOBfill, _OOB[r.oobfill])))
    return ctypes.string_at(tm.getPtr(), 128)


@dataclass
class PreparedLaunch:
    """Everything needed to launch one shape; `pack(pointers)` is the per-call step."""

    params: bytes
    slots: dict[str, list[tuple[int, int]]]
    grid: tuple[int, int, int]
    threads: int
    smem: int
    cluster: tuple[int, int]
    workspace_bytes: int
    tma: list[TmaDesc] = field(default_factory=list)
    workspace_clear: int = 0  # where the zeroed part of the workspace starts (stream-K: its barriers)
    # the kernel leaves that part zero (contract's workspace_self_clearing): no memset per launch,
    # and the workspace must be this shape's alone
    self_clearing: bool = False
    l2_promotion: str = "L2_128B"  # the tiled descriptors' CU_TENSOR_MAP_L2_PROMOTION_<this> (contract's tma_encode)
    scratch_bytes: int = 0  # after the workspace, not zeroed (parallel split-K's fp32 partials)
    reduce: tuple[int, int, int] | None = None  # the second kernel's params offset, grid and threads
    reduce_config: Any = None  # the reduction's CUlaunchConfig (programmatic dependent launch), built on first launch
    reduce_stream: int = -1  # the stream `reduce_config` holds
    config: Any = None  # the CUlaunchConfig, built on first launch
    stream: int = -1  # the stream `config` holds
    driver: Any = None  # the opt-in ctypes launch (KILN_LAUNCH=driver), built on first launch

    workspace_alloc: int = field(init=False)  # bytes the workspace buffer needs: the zeroed part, then the scratch

    def __post_init__(self) -> None:
        # a plain attribute, not a property: the per-call path reads it
        self.workspace_alloc = ((self.workspace_bytes + 255) // 256 * 256 + self.scratch_bytes if self.scratch_bytes
                                else self.workspace_bytes)

    def pack(self, pointers: dict[str, int]) -> bytes:
        buf = bytearray(self.params)
        for name, offsets in self.slots.items():
            base = pointers.get(name, 0)
            for off, delta in offsets:
                struct.pack_into("<Q", buf, off, base + delta if base else 0)
        for d in self.tma:
            encoded = (encode_im2col(pointers[d.operand], d.im2col) if d.im2col
                       else encode_tma(pointers[d.operand], d, self.l2_promotion))
            buf[d.offset:d.offset + 128] = encoded
        return bytes(buf)


def encode_tma(ptr: int, d: TmaDesc, l2_promotion: str = "L2_128B") -> bytes:
    tm = check(cu.cuTensorMapEncodeTiled(
        cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT16, d.rank, ptr,
        [cu.cuuint64_t(x) for x in d.dims[:d.rank]], [cu.cuuint64_t(x) for x in d.strides[1:d.rank]],
        [cu.cuuint32_t(x) for x in d.box[:d.rank]], [cu.cuuint32_t(1)] * d.rank,
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, getattr(cu.CUtensorMapSwizzle, _SWIZZLE[d.swizzle]),
        getattr(cu.CUtensorMapL2promotion, f"CU_TENSOR_MAP_L2_PROMOTION_{l2_promotion}"),
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
    return ctypes.string_at(tm.getPtr(), 128)


def ensure_context(device: int = 0) -> None:
    """Make the device's primary context current if no context is (the one PyTorch and the
    runtime API use), so a kernel can be loaded before anything else touched the GPU."""
    check(cu.cuInit(0))
    ctx = check(cu.cuCtxGetCurrent())
    if not int(ctx):
        dev = check(cu.cuDeviceGet(device))
        check(cu.cuCtxSetCurrent(check(cu.cuDevicePrimaryCtxRetain(dev))))


def load_module(cubin: bytes) -> Any:
    ensure_context()
    return check(cu.cuModuleLoadData(cubin))


def unload_module(module: Any) -> None:
    cu.cuModuleUnload(module)


class LoadedKernel:
    def __init__(self, cubin: bytes | None, launch: dict[str, Any], *, module: Any = None) -> None:
        """`module`: a module the caller loaded (load_module) and unloads; launch-time variants of
        one cubin share it. Otherwise the cubin is loaded here and unload() releases it."""
        ensure_context()
        self.launch = launch
        self._owns_module = module is None
        if module is None:
            assert cubin is not None, "a cubin or a loaded module"
            module = load_module(cubin)
        self.module = module
        self.entry = check(cu.cuModuleGetFunction(self.module, launch["entry"].encode()))
        self.builder = check(cu.cuModuleGetFunction(self.module, launch["builder"].encode()))
        reduce = launch.get("reduce")
        self.reduce_entry = check(cu.cuModuleGetFunction(self.module, reduce["entry"].encode())) if reduce else None
        fold = launch.get("conv", {}).get("input_transform")
        self.fold_entry = check(cu.cuModuleGetFunction(self.module, fold["entry"].encode())) if fold else None
        self._smem_set = 0
        # Programmatic dependent launch (the contract's "programmatic_dependent_launch"): this
        # kernel may be scheduled while the stream's previous kernel drains; it waits on that grid
        # (griddepcontrol.wait) before touching global memory.
        self.dependent_launch = bool(launch.get("programmatic_dependent_launch")) and PDL_ALLOWED
        # parallel split-K's reduction likewise (it waits on the GEMM grid before reading partials)
        self.reduce_dependent_launch = bool((reduce or {}).get("programmatic_dependent_launch")) and PDL_ALLOWED

    def launch_fold(self, values: dict[str, int], elements: int, stream: int) -> None:
        """The cubin's own input transform (a conv contract's "input_transform"): one thread per
        `vector` output elements (a number, or the name of the argument that holds it), in a
        grid-stride loop."""
        fold = self.launch["conv"]["input_transform"]
        args = _kernel_args(fold["args"], values)
        threads = int(fold["threads"])
        vector = values[fold["vector"]] if isinstance(fold["vector"], str) else int(fold["vector"])
        blocks = max(1, min(-(-elements // (vector * threads)), 65535))
        check(cu.cuLaunchKernel(self.fold_entry, blocks, 1, 1, threads, 1, 1, 0, stream, args, 0))

    def unload(self) -> None:
        if self._owns_module:
            unload_module(self.module)

    def prepare(self, *, m: int = 0, n: int = 0, k: int = 0, alpha: float, beta: float, sm_count: int, stream: int,
                scratch: int, runtime: dict[str, Any] | None = None, dims: dict[str, int] | None = None) -> PreparedLaunch:
        """Run the builder once for this shape. `scratch`: a device buffer of ≥ 64 KiB.
        GEMMs give m, n, k; convolutions give `dims` (ConvProblem.builder_dims)."""
        rt = {**self.launch["runtime"], **(runtime or {})}
        values = {"M": m, "N": n, "K": k, **(dims or {}), "alpha": alpha, "beta": beta, "sm_count": sm_count,
                  "split_k": rt.get("split_k", 1), "splits": rt.get("split_k", 1),
                  "raster": RASTER_CODE[rt.get("raster", "heuristic")],
                  "decomposition": DECOMPOSITION_CODE[rt.get("decomposition", "heuristic")],
                  "max_swizzle": rt.get("max_swizzle", 1), "params_out": scratch, "meta_out": scratch + 32768,
                  "max_active_clusters": 0, **SENTINELS}
        f = self.launch["meta_fields"]
        meta = self._build(values, scratch, stream)
        if "max_active_clusters:i32" in self.launch["builder_args"]:
            values["max_active_clusters"] = self.max_active_clusters(
                (meta[f["cluster"]], meta[f["cluster"] + 1]), meta[f["threads"]], meta[f["smem"]])
            meta = self._build(values, scratch, stream)
        size = meta[f["params_size"]]
        if size <= 0:  # the builder's own check failed (an odd-width tile's B view: N % 8, K % 64)
            raise CudaError(f"this kernel cannot run M={m} N={n} K={k}: its params builder refused the problem")
        params = bytearray(size)
        check(cu.cuMemcpyDtoH(params, scratch, size))
        tma = []
        for i, operand in enumerate(self.launch["tma_operands"][: meta[f["num_tma"]]]):
            o = meta[f["tma"] + i * f["tma_stride"]: f["tma"] + (i + 1) * f["tma_stride"]]
            if o[1] == -1:  # im2col: the builder left the encode arguments in the descriptor's bytes
                record = Im2colRecord.parse(bytes(params[o[0]:o[0] + 128]))
                tma.append(TmaDesc(operand, o[0], record.rank, record.swizzle_bits, [], [], [], record))
            else:
                tma.append(TmaDesc(operand, o[0], o[1], o[2], list(o[4:9]), list(o[9:14]), list(o[14:19])))
        skip = {range(d.offset, d.offset + 128) for d in tma}
        slots = _find_slots(bytes(params), skip)
        smem = meta[f["smem"]]
        self._allow_smem(smem)
        g = f["grid"]
        reduce = None
        if self.reduce_entry is not None:
            reduce = (meta[f["reduce_offset"]], meta[f["reduce_grid"]], meta[f["reduce_threads"]])
            if not reduce[0]:
                raise CudaError("the cubin names a reduction kernel but its builder did not describe its launch")
        return PreparedLaunch(bytes(params), slots, (meta[g], meta[g + 1], meta[g + 2]), meta[f["threads"]], smem,
                              (meta[f["cluster"]], meta[f["cluster"] + 1]), meta[f["workspace"]], tma,
                              scratch_bytes=meta[f["scratch"]] if "scratch" in f else 0, reduce=reduce,
                              workspace_clear=meta[f["workspace_clear"]] if "workspace_clear" in f else 0,
                              l2_promotion=self.launch.get("tma_encode", {}).get("l2_promotion", "L2_128B"),
                              self_clearing=bool(self.launch.get("workspace_self_clearing")))

    def _build(self, values: dict[str, Any], scratch: int, stream: int) -> tuple[int, ...]:
        """One run of the cubin's params builder; Params stay in `scratch`, meta comes back."""
        args = _kernel_args(self.launch["builder_args"], values)
        meta_len = self.launch["meta_len"]
        check(cu.cuMemsetD8Async(scratch, 0, 32768 + 8 * meta_len, stream))
        check(cu.cuLaunchKernel(self.builder, 1, 1, 1, 1, 1, 1, 0, stream, args, 0))
        check(cu.cuStreamSynchronize(stream))
        meta_bytes = bytearray(8 * meta_len)
        check(cu.cuMemcpyDtoH(meta_bytes, scratch + 32768, len(meta_bytes)))
        return struct.unpack(f"<{meta_len}q", meta_bytes)

    def _allow_smem(self, smem: int) -> None:
        if smem > 48 * 1024 and smem > self._smem_set:
            check(cu.cuFuncSetAttribute(self.entry, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem))
            self._smem_set = smem

    def max_active_clusters(self, cluster: tuple[int, int], threads: int, smem: int) -> int:
        """How many of this kernel's clusters the GPU holds at once, at its block size and shared
        memory: a cluster must fit inside one GPC, so on an H200 (132 SMs) it holds 30 four-CTA
        clusters, where CUTLASS's 18-SM-GPC estimate assumes 29."""
        self._allow_smem(smem)
        config = _config((cluster[0], cluster[1], 1), threads, smem, [_cluster_attribute(cluster)])
        return int(check(cu.cuOccupancyMaxActiveClusters(self.entry, config)))

    def launch_packed(self, prepared: PreparedLaunch, packed: bytes, stream: int,
                      workspace: int = 0) -> None:
        self.launch_args(prepared, PackedArgs.of(packed, prepared), stream, workspace)

    def launch_args(self, prepared: PreparedLaunch, args: PackedArgs, stream: int, workspace: int = 0) -> None:
        """The per-call path: a memset for split-K/stream-K workspaces (only the part the kernel
        reads before writing, and none where the kernel leaves it zeroed), then one cuLaunchKernelEx
        with a launch config built once per shape (only the stream changes)."""
        if prepared.workspace_bytes and workspace and not prepared.self_clearing:
            clear = prepared.workspace_clear
            check(cu.cuMemsetD8Async(workspace + clear, 0, prepared.workspace_bytes - clear, stream))
        if driver_launch.ENABLED:
            if prepared.driver is None:
                prepared.driver = driver_launch.DriverLaunch(
                    int(self.entry), prepared.grid, prepared.threads, prepared.smem, self._cluster(prepared),
                    self.dependent_launch)
            result = prepared.driver(stream, args.address)
            if result:
                check(cu.CUresult(result))
            if prepared.reduce is not None:
                self._launch_reduce(prepared, args, stream)
            return
        cfg = prepared.config
        if cfg is None:
            cfg = prepared.config = self._launch_config(prepared)
        if prepared.stream != stream:  # cuda-python's setter converts the handle (~0.3 µs here)
            cfg.hStream = prepared.stream = stream
        err, = cu.cuLaunchKernelEx(cfg, self.entry, args.address, 0)
        if err:  # CUDA_SUCCESS is 0; comparing enum members costs more on the per-call path
            check(err)
        if prepared.reduce is not None:
            self._launch_reduce(prepared, args, stream)

    def _launch_reduce(self, prepared: PreparedLaunch, args: PackedArgs, stream: int) -> None:
        """Parallel split-K's second kernel: sums the slices' partials, applies the epilogue. As a
        programmatic dependent of the GEMM where its contract allows (its launch overlaps the
        GEMM's tail; it waits for the GEMM grid before reading), else a plain launch."""
        assert prepared.reduce is not None
        _, grid, threads = prepared.reduce
        if not self.reduce_dependent_launch:
            err, = cu.cuLaunchKernel(self.reduce_entry, grid, 1, 1, threads, 1, 1, 0, stream, args.reduce_address, 0)
        else:
            cfg = prepared.reduce_config
            if cfg is None:
                cfg = prepared.reduce_config = _config((grid, 1, 1), threads, 0, [_dependent_launch_attribute()])
            if prepared.reduce_stream != stream:
                cfg.hStream = prepared.reduce_stream = stream
            err, = cu.cuLaunchKernelEx(cfg, self.reduce_entry, args.reduce_address, 0)
        if err:
            check(err)

    def _cluster(self, prepared: PreparedLaunch) -> tuple[int, int] | None:
        """The cluster a launch asks for: only real ones (sm90 kernels run as 1x1 clusters without
        the attribute)."""
        return prepared.cluster if self.launch.get("cluster_launch") and prepared.cluster != (1, 1) else None

    def _launch_config(self, prepared: PreparedLaunch) -> Any:
        attrs = []
        cluster = self._cluster(prepared)
        if cluster is not None:
            attrs.append(_cluster_attribute(cluster))
        if self.dependent_launch:
            attrs.append(_dependent_launch_attribute())
        return _config(prepared.grid, prepared.threads, prepared.smem, attrs)


def _config(grid: tuple[int, int, int], threads: int, smem: int, attrs: list[Any]) -> Any:
    """A cuLaunchKernelEx configuration (its stream is set by the caller, per launch)."""
    cfg = cu.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = threads, 1, 1
    cfg.sharedMemBytes = smem
    cfg.attrs = attrs
    cfg.numAttrs = len(attrs)
    return cfg


def _cluster_attribute(cluster: tuple[int, int]) -> Any:
    attr = cu.CUlaunchAttribute()
    attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = (*cluster, 1)
    return attr


def _dependent_launch_attribute() -> Any:
    """Programmatic stream serialization: the kernel may launch while the stream's previous one
    drains (it waits on that grid itself before touching its inputs)."""
    attr = cu.CUlaunchAttribute()
    attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    attr.value.programmaticStreamSerializationAllowed = 1
    return attr


@dataclass
class PackedArgs:
    """Params bytes pinned in host memory with the one-element argument array pointing at them:
    what cuLaunchKernelEx reads. Built once per pointer set and reused for every launch."""

    holder: Any
    argv: Any
    address: int
    reduce_address: int = 0  # the argument array of a second kernel (parallel split-K's reduction)

    @classmethod
    def of(cls, packed: bytes, prepared: PreparedLaunch | None = None) -> PackedArgs:
        holder = ctypes.create_string_buffer(packed, len(packed))
        base = ctypes.addressof(holder)
        offset = prepared.reduce[0] if prepared is not None and prepared.reduce is not None else 0
        argv = (ctypes.c_void_p * 2)(base, base + offset)
        return cls(holder, argv, ctypes.addressof(argv), ctypes.addressof(argv) + ctypes.sizeof(ctypes.c_void_p) if offset else 0)


def _kernel_args(spec: list[str], values: dict[str, Any]) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """cuLaunchKernel's (values, ctypes) for a contract's argument list ("name:i32", "name:ptr"...)."""
    names, kinds = zip(*(a.split(":") for a in spec), strict=True)
    return tuple(values[n] for n in names), tuple(_CTYPES[t] for t in kinds)


def _find_slots(params: bytes, skip: set[range]) -> dict[str, list[tuple[int, int]]]:
    slots: dict[str, list[tuple[int, int]]] = {}
    for off in range(0, len(params) - 7, 8):
        if any(off in r for r in skip):
            continue
        (word,) = struct.unpack_from("<Q", params, off)
        for name, base in SENTINELS.items():
            if base <= word < base + SENTINEL_SPAN:
                slots.setdefault(name, []).append((off, word - base))
    return slots
