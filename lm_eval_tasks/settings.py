"""Per-run settings from ``--metadata`` (or environment variables), resolved per task.

For a run of several hallubench tasks, ``dataset_<task>`` / ``judge_<task>`` override the shared
``dataset`` / ``judge`` keys; the environment fallbacks are ``HALLUBENCH_DATASET[_<TASK>]`` and
``HALLUBENCH_JUDGE[_<TASK>]``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any


def task_setting(metadata: Mapping[str, Any], key: str, task: str) -> tuple[str | None, str]:
    """The value for ``key`` and where it came from (for error messages)."""
    for name in (f"{key}_{task}", key):
        value = metadata.get(name)
        if value not in (None, ""):
            return str(value), f"--metadata {name}"
    for name in (f"HALLUBENCH_{key.upper()}_{task.upper()}", f"HALLUBENCH_{key.upper()}"):
        value = os.environ.get(name)
        if value:
            return value, f"${name}"
    return None, f"--metadata {key} (or ${'HALLUBENCH_' + key.upper()})"
