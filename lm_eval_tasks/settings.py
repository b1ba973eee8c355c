"""Settings only an lm-eval run has: ``judge_probe_timeout`` (``$HALLUBENCH_JUDGE_PROBE_TIMEOUT``) bounds the check
that ``openai:`` judges answer before the model runs. A run's other settings are resolved once per task by
``hallu_metrics.settings.resolve_settings``."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hallu_metrics.settings import task_setting
from hallubench.core.errors import HallubenchError

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
