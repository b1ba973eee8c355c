"""hallubench: LLM hallucination benchmarks for lm-evaluation-harness."""

__version__ = "0.1.0"
