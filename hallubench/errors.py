"""The one exception type users see: its message is printed as a single line by the CLI."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


class HallubenchError(Exception):
    """A user-facing error (bad input, unreachable endpoint, shortfall...)."""


@contextmanager
def sqlite_errors(what: str, advice: str) -> Iterator[None]:
    """Turn SQLite and file-system failures into one line: ``WHAT: reason (ADVICE)``."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise HallubenchError(f"{what}: {reason} ({advice})") from exc
