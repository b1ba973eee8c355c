"""Puts ``tests/`` on a benchmark script's import path: the loopback servers that stand in for remote APIs live
there (test support, not shipped in the hallubench packages)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
