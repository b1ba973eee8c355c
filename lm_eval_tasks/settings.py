"""Per-run settings from ``--metadata`` (or environment variables), resolved per task.

For a run of several hallubench tasks, ``dataset_<task>`` / ``judge_<task>`` override the shared
``dataset`` / ``judge`` keys; the environment fallbacks are ``HALLUBENCH_DATASET[_<TASK>]`` and
``HALLUBENCH_JUDGE[_<TASK>]``. ``judge_probe_timeout`` (``$HALLUBENCH_JUDGE_PROBE_TIMEOUT``) bounds the check that
``openai:`` judges answer before the model runs.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from hallubench.errors import HallubenchError


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


PROBE_TIMEOUT_KEY = "judge_probe_timeout"
DEFAULT_PROBE_TIMEOUT_S = 5.0


def probe_timeout(metadata: Mapping[str, Any], task: str) -> float | None:
    """Seconds the reachability probe of ``openai:`` judges (``GET /models``, before the model runs) may wait:
    ``--metadata judge_probe_timeout=S`` or ``$HALLUBENCH_JUDGE_PROBE_TIMEOUT`` (default 5); None when set to 0
    (probe switched off)."""
    value, source = task_setting(metadata, PROBE_TIMEOUT_KEY, task)
    if value is None:
        return DEFAULT_PROBE_TIMEOUT_S
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise HallubenchError(f"{source}={value!r}: expected seconds >= 0 (0 switches the judge reachability "
                              "probe off)")
    return seconds or None
