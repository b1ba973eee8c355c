"""Scoring and reports without argparse: score, report, compare, stability, paper tables, plan, agreement,
viewer (the CLI in ``hallubench.cli`` parses arguments and calls these)."""
