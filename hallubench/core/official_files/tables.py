"""Record files of user data (JSON lines, a JSON array, parquet) read with errors that name the file, the line (or
row) and the field: a knowledge-store source, an article source. Records are streamed (a JSON-lines or parquet file
of a whole Wikipedia is never held in memory at once); field values are checked for the type the caller needs, so a
list where text belongs is an error, not a page titled ``['a', 'b']``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from hallubench.core.errors import HallubenchError

TEXT = (str,)
SUFFIXES = (".jsonl", ".json", ".parquet")
_TYPE_NAMES = {str: "text", int: "a whole number", float: "a number"}
Located = tuple[str, dict[str, Any]]  # ("FILE:LINE" or "FILE row N", record)


def iter_records(path: Path) -> Iterator[Located]:
    """Every record of a ``.jsonl`` / ``.json`` (JSON lines or one array) / ``.parquet`` file, with where it is."""
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _parquet_records(path)
    if suffix not in (".jsonl", ".json"):
        raise HallubenchError(f"unsupported source file {path} (expected {', '.join(SUFFIXES)})")
    return iter_json_records(path)


def read_json_records(path: str | Path) -> list[dict[str, Any]]:
    """The objects of a JSON-lines file or of a JSON array, whatever the file is named (a download's cached copy)."""
    return [record for _, record in iter_json_records(Path(path))]


def iter_json_records(path: Path) -> Iterator[Located]:
    """The objects of a JSON-lines file or of one JSON array, with where each is; errors name the line."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = handle.read(4096).lstrip()
            handle.seek(0)
            if first.startswith("["):
                yield from _array_records(path, handle.read())
                return
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    yield _line_record(path, number, line)
    except UnicodeDecodeError as exc:
        raise HallubenchError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise HallubenchError(f"{path}: cannot read ({exc.strerror or exc})") from exc


def _line_record(path: Path, number: int, line: str) -> Located:
    where = f"{path}:{number}"
    try:
        return where, _object(json.loads(line), where)
    except (json.JSONDecodeError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        raise HallubenchError(f"{where}: not a JSON object ({reason})") from exc


def _array_records(path: Path, text: str) -> Iterator[Located]:
    try:
        array = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        line = exc.lineno if isinstance(exc, json.JSONDecodeError) else "?"
        raise HallubenchError(f"{path}:{line}: not a JSON array of objects") from exc
    for i, record in enumerate(array):
        yield f"{path} record {i}", _object(record, f"{path} record {i}")


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise HallubenchError(f"{where}: not a JSON object (got {type(value).__name__})")
    return value


def _parquet_records(path: Path) -> Iterator[Located]:
    import pyarrow
    import pyarrow.parquet

    try:
        reader = pyarrow.parquet.ParquetFile(path)
        row = 0
        for batch in reader.iter_batches(batch_size=1024):
            for record in batch.to_pylist():
                yield f"{path} row {row}", record
                row += 1
    except (OSError, pyarrow.ArrowException) as exc:
        raise HallubenchError(f"{path}: not a readable parquet file ({exc})") from exc


def record_count(path: Path) -> int | None:
    """Records in a parquet file (from its footer), else None (JSON lines are not counted ahead)."""
    if path.suffix.lower() != ".parquet":
        return None
    import pyarrow.parquet

    try:
        return pyarrow.parquet.ParquetFile(path).metadata.num_rows
    except OSError:
        return None


def checked_fields(records: Iterable[Located], required: Mapping[str, tuple[type, ...]]) -> Iterator[dict[str, Any]]:
    """The records, each with every ``required`` field present and of one of its types (None allowed: an empty page
    is skipped by the caller); the first record that is not names its line and field."""
    for where, record in records:
        for field, types in required.items():
            if field not in record:
                raise HallubenchError(f"{where}: no {field!r} field (each record needs {', '.join(required)})")
            value = record[field]
            if value is not None and (not isinstance(value, types) or isinstance(value, bool)):
                raise HallubenchError(f"{where}: {field!r} must be {_TYPE_NAMES.get(types[0], types[0].__name__)}, "
                                      f"got {type(value).__name__}")
        yield record
