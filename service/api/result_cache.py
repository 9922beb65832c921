"""Serialized results by spec key, per process.

Safe without invalidation because results are insert-once: once a key has a winner it never
changes, so a hit can skip the database and the response model entirely.
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class ResultCache:
    def __init__(self, capacity: int = 20_000) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value: bytes) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)
