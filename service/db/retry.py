"""What happens to a job whose attempt ended without a result."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class RetryDecision:
    retry: bool
    run_after: datetime | None = None


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff per attempt, capped; a job gets `max_attempts` leases in all."""

    base_seconds: float = 5.0
    cap_seconds: float = 300.0

    def decide(self, *, attempts: int, max_attempts: int, retryable: bool, now: datetime) -> RetryDecision:
        if not retryable or attempts >= max_attempts:
            return RetryDecision(retry=False)
        delay = min(self.cap_seconds, self.base_seconds * (2 ** max(0, attempts - 1)))
        return RetryDecision(retry=True, run_after=now + timedelta(seconds=delay))
