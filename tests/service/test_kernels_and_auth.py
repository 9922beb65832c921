"""Cubin storage (content-addressed, verified on read, ETag) and token scopes."""

from __future__ import annotations

import hashlib
import stat
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import update

from service import auth
from service.db.engine import Database
from service.db.models import KernelBlob
from tests.service.helpers import GEMM, cubin, finish, lease, register


def test_upload_download_etag(worker_client: TestClient, client: TestClient) -> None:
    sha, data = cubin("k")
    assert worker_client.put(f"/kernel/{sha}", content=data).status_code == 201
    assert worker_client.put(f"/kernel/{sha}", content=data).json()["created"] is False
    got = client.get(f"/kernel/{sha}")
    assert got.status_code == 200 and got.content == data and got.headers["etag"] == f'"{sha}"'
    assert client.get(f"/kernel/{sha}", headers={"If-None-Match": f'"{sha}"'}).status_code == 304
    assert worker_client.get(f"/kernel/{sha}").status_code == 200  # workers read kernels too


def test_upload_must_hash_to_its_name(worker_client: TestClient) -> None:
    sha, data = cubin("k")
    r = worker_client.put(f"/kernel/{sha}", content=data + b"!")
    assert r.status_code == 422 and "sha256" in r.json()["detail"][0]["msg"]
    assert r.json()["detail"][0]["loc"] == ["body"] and r.json()["detail"][0]["type"] == "kiln.digest_mismatch"
    assert worker_client.put("/kernel/NOTAHASH", content=data).status_code == 422


def test_corrupted_cubin_is_reported_never_served(client: TestClient, worker_client: TestClient, db: Database) -> None:
    sha, data = cubin("k")
    worker_client.put(f"/kernel/{sha}", content=data)
    with db.transaction() as s:
        s.execute(update(KernelBlob).where(KernelBlob.sha256 == sha).values(data=data[:-1] + b"X"))
    r = client.get(f"/kernel/{sha}")
    assert r.status_code == 500 and "corrupted" in r.json()["detail"] and data[:16] not in r.content
    assert client.get(f"/kernel/{'0' * 64}").status_code == 404


def test_meta_describes_how_to_launch(client: TestClient, worker_client: TestClient) -> None:
    client.post("/tune", json={"problems": [GEMM]})
    done = finish(worker_client, lease(worker_client, register(worker_client)), tag="m")
    sha = done["result"]["kernel"]["sha256"]
    meta = client.get(f"/kernel/{sha}/meta").json()
    assert meta["launch"] == {"entry": "gemm_kernel"} and meta["arch"] == "sm_90a" and meta["cubin_url"] == f"/kernel/{sha}"


def test_result_must_reference_uploaded_kernels(client: TestClient, worker_client: TestClient) -> None:
    client.post("/tune", json={"problems": [GEMM]})
    leased = lease(worker_client, register(worker_client))
    from tests.service.helpers import result_body

    r = worker_client.post(f"/jobs/{leased['job']['id']}/result", json=result_body(leased["lease_token"], "x", "a" * 64))
    assert r.status_code == 422 and "not uploaded" in r.json()["detail"][0]["msg"]
    assert r.json()["detail"][0]["loc"] == ["body", "kernels", 0, "sha256"]


def test_scopes(app, tokens: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app) as anon:
        assert anon.post("/tune", json={"problems": [GEMM]}).status_code == 401
        assert anon.get("/healthz").status_code == 200
        h = lambda t: {"Authorization": f"Bearer {t}"}  # noqa: E731
        assert anon.post("/tune", json={"problems": [GEMM]}, headers=h("kiln_bogus")).status_code == 401
        assert anon.post("/tune", json={"problems": [GEMM]}, headers=h(tokens["worker"])).status_code == 403
        assert anon.post("/workers/register", json={}, headers=h(tokens["submit"])).status_code == 403
        assert anon.post("/tune", json={"problems": [GEMM]}, headers=h(tokens["admin"])).status_code == 202


def test_revoked_token_stops_working(app, tokens: dict[str, str], db: Database) -> None:  # type: ignore[no-untyped-def]
    with db.transaction() as s:
        auth.revoke(s, name="submit")
    with TestClient(app, headers={"Authorization": f"Bearer {tokens['submit']}"}) as c:
        assert c.post("/lookup", json={"problem": GEMM}).status_code == 401


def test_bootstrap_admin_token_is_private_and_made_once(db: Database, tmp_path: Path) -> None:
    path = tmp_path / "data" / "admin.token"
    with db.transaction() as s:
        token = auth.bootstrap_admin_token(s, path=path, configured=None)
    assert token and path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with db.transaction() as s:
        assert auth.bootstrap_admin_token(s, path=path, configured=None) is None
        row = auth.resolve(s, token)
        assert row is not None and row.token_sha256 == hashlib.sha256(token.encode()).hexdigest()
        assert auth.scopes_of(row) == {auth.Scope.admin}
