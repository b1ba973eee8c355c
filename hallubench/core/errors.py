"""The one exception type users see: its message is printed as a single line by the CLI."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


class HallubenchError(Exception):
    """A user-facing error (bad input, unreachable endpoint, shortfall...)."""


class TaskRefusal(HallubenchError, SystemExit):
    """A ``HallubenchError`` raised while lm-eval builds or runs a hallubench task. Being also a ``SystemExit``, an
    uncaught one ends plain ``lm_eval`` with its one line and exit status 1 instead of a traceback; ``hallubench
    eval`` catches it as any ``HallubenchError``."""

    def __init__(self, message: str):
        super().__init__(message)
        self.code = f"hallubench: error: {message}"  # what the interpreter prints for an uncaught SystemExit


@contextmanager
def refused_plainly() -> Iterator[None]:
    """Re-raise a ``HallubenchError`` of the block as a ``TaskRefusal`` (lm-eval prints it as one line)."""
    try:
        yield
    except TaskRefusal:
        raise
    except HallubenchError as exc:
        raise TaskRefusal(str(exc)) from exc


@contextmanager
def sqlite_errors(what: str, advice: str) -> Iterator[None]:
    """Turn SQLite and file-system failures into one line: ``WHAT: reason (ADVICE)``."""
    try:
        yield
    except (sqlite3.Error, OSError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise HallubenchError(f"{what}: {reason} ({advice})") from exc
