"""Content-addressed cubins: download (verified, ETag), launch metadata, upload by workers."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Request, Response
from starlette.concurrency import run_in_threadpool

from service.api.deps import ReaderAuth, ReadSessionDep, SettingsDep, WorkerAuth
from service.api.errors import WITH_BODY, raises
from service.db import kernels
from service.db.errors import KilnError

router = APIRouter(tags=["kernels"])

Sha = Annotated[str, Path(pattern=r"^[0-9a-f]{64}$", description="sha256 of the cubin, lowercase hex")]


class PayloadTooLarge(KilnError):
    """The upload is larger than KILN_MAX_KERNEL_BYTES."""

    status_code = 413


@router.get(
    "/kernel/{sha256}",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}}, 304: {"description": "not modified"},
               **raises(kernels.KernelNotFound, kernels.KernelCorrupted)},
    summary="The cubin, verified against its sha256 before it is sent",
)
async def get_cubin(
    sha256: Sha, request: Request, _auth: ReaderAuth, if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    etag = f'"{sha256}"'
    db = request.app.state.db
    revalidate = if_none_match is not None and etag in [t.strip() for t in if_none_match.split(",")]

    def read() -> bytes | None:
        with db.read_session() as session:
            if revalidate and kernels.blob_exists(session, sha256=sha256):
                return None
            return kernels.read_blob(session, sha256=sha256)  # sha256-verified

    data = await run_in_threadpool(read)
    if data is None:
        return Response(status_code=304, headers={"ETag": etag})
    return Response(content=data, media_type="application/octet-stream", headers={
        "ETag": etag, "Cache-Control": "public, max-age=31536000, immutable",
        "Content-Disposition": f'attachment; filename="{sha256[:16]}.cubin"',
    })


@router.get("/kernel/{sha256}/meta", responses=raises(kernels.KernelNotFound), summary="Everything a client needs to launch the cubin")
def get_meta(sha256: Sha, session: ReadSessionDep, _auth: ReaderAuth) -> dict[str, Any]:
    k = kernels.get_kernel(session, sha256=sha256)
    return {
        "sha256": k.sha256, "name": k.name, "family": k.family, "arch": k.arch, "toolchain": k.toolchain,
        "config": k.config, "source_sha256": k.source_sha256, "compile_seconds": k.compile_seconds,
        "launch": k.launch, "cubin_url": f"/kernel/{k.sha256}",
    }


@router.put("/kernel/{sha256}", status_code=201, responses={200: {"description": "already stored"}, **WITH_BODY,
            **raises(PayloadTooLarge, kernels.DigestMismatch)}, summary="Upload a cubin (workers); idempotent")
async def put_cubin(
    sha256: Sha, request: Request, settings: SettingsDep, _auth: WorkerAuth, response: Response,
) -> dict[str, Any]:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > settings.max_kernel_bytes:
            raise PayloadTooLarge()
        chunks.append(chunk)
    data = b"".join(chunks)
    db = request.app.state.db
    def store() -> bool:
        with db.transaction() as session:
            return kernels.put_blob(session, sha256=sha256, data=data)

    created = await run_in_threadpool(store)
    response.status_code = 201 if created else 200
    return {"sha256": sha256, "size": len(data), "created": created}


