"""Checks ``hallubench eval`` makes before handing over to lm-eval, so that first-hour mistakes end in
one line instead of a traceback after tens of seconds of model loading: unknown task names (with the
closest known names suggested) and ``dataset*`` metadata that points nowhere."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from pathlib import Path

from hallubench.errors import HallubenchError


def option_value(args: Sequence[str], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in an argument list."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def check_tasks(names: Sequence[str], known: Sequence[str]) -> None:
    """Every requested task / group / tag exists; otherwise one line naming the closest known ones."""
    for name in names:
        if name not in known and not Path(name).exists():
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else " (list them with: lm_eval --tasks list)"
            raise HallubenchError(f"unknown task {name!r}{hint}")


def metadata_of(args: Sequence[str]) -> dict:
    """``--metadata`` as a dict (JSON or k=v,k=v), {} when absent."""
    text = option_value(args, "--metadata")
    if not text:
        return {}
    if text.strip().startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise HallubenchError(f"--metadata is not valid JSON ({exc.msg} at column {exc.colno})") from exc
        if not isinstance(value, dict):
            raise HallubenchError("--metadata must be a JSON object")
        return value
    return dict(pair.split("=", 1) for pair in text.split(",") if "=" in pair)


def check_dataset_keys(metadata: dict) -> None:
    """Each ``dataset*`` value names an existing path or looks like a Hub id (``owner/name``)."""
    for key, value in metadata.items():
        if not key.startswith("dataset") or key == "dataset_revision" or not isinstance(value, str):
            continue
        path = Path(value).expanduser()
        hub_id = value.count("/") == 1 and not value.startswith((".", "/", "~")) and not path.exists()
        if not path.exists() and not hub_id:
            raise HallubenchError(f"--metadata {key}={value!r}: no such file or folder (and not a Hub id owner/name)")
