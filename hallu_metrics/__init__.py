"""Judges and metric functions for hallubench's benchmarks (plain Python, usable outside lm-eval)."""

from hallubench.core.moved import install as _keep_old_import_paths

_keep_old_import_paths()
