"""lm-eval task definitions of hallubench. Point lm-eval at this folder:
``lm_eval --include_path "$(hallubench tasks-path)" ...`` or use ``hallubench eval``."""

from pathlib import Path

TASKS_DIR = Path(__file__).resolve().parent
