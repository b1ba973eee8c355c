"""JSON-lines / JSON-array record files (HaluEval's ``.json`` files are JSON lines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hallubench.errors import HallubenchError


def read_json_records(path: str | Path) -> list[dict[str, Any]]:
    """The objects of a JSON-lines file or of a JSON array; one-line errors for anything else."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise HallubenchError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise HallubenchError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    try:
        if text.lstrip().startswith("["):
            records = json.loads(text)
        else:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise HallubenchError(f"{path}: neither JSON lines nor a JSON array ({exc})") from exc
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise HallubenchError(f"{path}: every record must be a JSON object")
    return records
