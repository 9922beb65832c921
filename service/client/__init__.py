"""Python clients for the Kiln API: `KilnClient` (sync) and `AsyncKilnClient`, sharing one
content-addressed on-disk kernel cache (`KernelCache`) that keeps working offline once filled."""

from service.client.aio import AsyncKilnClient
from service.client.cache import CorruptedKernel, KernelCache
from service.client.common import IntegrityError, KilnHTTPError, TuneTimeout, default_token
from service.client.sync import KilnClient

__all__ = ["AsyncKilnClient", "CorruptedKernel", "IntegrityError", "KernelCache", "KilnClient", "KilnHTTPError",
           "TuneTimeout", "default_token"]
