"""Data-layer exceptions; each docstring is the message a client sees."""


class KilnError(Exception):
    """Kiln error."""

    status_code = 400
    # Where in the request the fault lies, as FastAPI's validation errors name it: a 422 answers in
    # their shape (service/api/errors.py), so a client parses one kind of 422 and learns the field.
    loc: tuple[str | int, ...] = ("body",)

    def __init__(self, detail: str | None = None, *, loc: tuple[str | int, ...] | None = None) -> None:
        super().__init__(detail or (self.__doc__ or "").strip())
        self.detail = detail or (self.__doc__ or "").strip()
        if loc is not None:
            self.loc = loc


class JobNotFound(KilnError):
    """No job with this id."""

    status_code = 404


class LeaseLost(KilnError):
    """This worker no longer holds the lease on the job (it expired, was cancelled or was re-leased); the write was refused."""

    status_code = 409


class JobNotCancellable(KilnError):
    """The job has already finished and cannot be cancelled."""

    status_code = 409


class JobNotRetryable(KilnError):
    """Only failed or cancelled jobs can be retried."""

    status_code = 409


class KernelMissing(KilnError):
    """A result names a kernel whose cubin was never uploaded."""

    status_code = 422
    loc = ("body", "kernels")


class ResultNotFound(KilnError):
    """No tuning result with this spec key."""

    status_code = 404


class WorkerNotFound(KilnError):
    """No worker with this id; register first."""

    status_code = 404
