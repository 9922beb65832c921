"""POST /tune and POST /lookup as plain functions: cache first, then join or queue a job."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel
from sqlalchemy.orm import Session

from service.api.schemas import TuneItem
from service.api.views import result_out
from service.db import queue, results
from service.db.models import JobState, TuningResult
from service.specs import Target, canonical_json, spec_key
from service.specs.keys import canonical_dict
from service.versions import toolchain


@dataclass(frozen=True)
class KeyedProblem:
    problem: BaseModel
    target: Target
    key: str


def key_problems(problems: list[BaseModel], target: Target) -> list[KeyedProblem]:
    return [KeyedProblem(p, target, spec_key(p, target)) for p in problems]


def tune_batch(
    session: Session, *, problems: list[KeyedProblem], priority: int, max_attempts: int
) -> list[TuneItem]:
    cached = results.get_results(session, spec_keys=[p.key for p in problems])
    items: list[TuneItem] = []
    for index, kp in enumerate(problems):
        hit = cached.get(kp.key)
        if hit is not None:
            items.append(TuneItem(index=index, spec_key=kp.key, status="cached", result=result_out(hit)))
            continue
        job, created = queue.submit(session, job=queue.NewJob(
            spec_key=kp.key, op=kp.problem.op, spec=canonical_dict(kp.problem),  # type: ignore[attr-defined]
            arch=kp.target.arch, gpu=kp.target.gpu, toolchain=toolchain().fingerprint,
            priority=priority, max_attempts=max_attempts,
        ))
        status: Literal["running", "queued"] = "running" if job.state == JobState.running else "queued"
        items.append(TuneItem(index=index, spec_key=kp.key, status=status, job_id=job.id, joined_existing=not created))
    return items


@dataclass(frozen=True)
class LookupOutcome:
    result: TuningResult | None
    job_id: str | None


def lookup(session: Session, *, kp: KeyedProblem) -> LookupOutcome:
    hit = results.get_result(session, spec_key=kp.key)
    if hit is not None:
        return LookupOutcome(hit, None)
    job = queue.find_active_job(session, spec_key=kp.key)
    return LookupOutcome(None, job.id if job else None)


def request_digest(body: dict) -> str:
    """What an Idempotency-Key is bound to: the canonical request body."""
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()
