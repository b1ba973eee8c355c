"""hallubench: LLM hallucination benchmarks for lm-evaluation-harness."""

__version__ = "0.1.0"

from hallubench.core.moved import install as _keep_old_import_paths

_keep_old_import_paths()
