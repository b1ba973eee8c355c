"""Judges and metric functions for hallubench's benchmarks (plain Python, usable outside lm-eval)."""
