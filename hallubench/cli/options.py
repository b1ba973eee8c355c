"""Options several subcommands share: run settings (``--judge``, ``--judge-role``, ``--set``, ``--knowledge``), prices
and budget caps, and the argument types behind them."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    pass


def key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def _bounded(convert: Callable[[str], float], what: str, low: float = 0.0,
             high: float = math.inf) -> Callable[[str], float]:
    """An argparse type: ``convert(text)`` between ``low`` and ``high``, else one line saying what was expected."""

    def parse(text: str) -> float:
        try:
            value = convert(text)
        except ValueError:
            value = math.nan
        if not low <= value <= high:  # NaN and infinities fail too
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


share = _bounded(float, "a share between 0 and 1", high=1.0)
usd = _bounded(float, "US dollars, 0 or more (e.g. 5 or 0.50)", high=1e12)
call_count = _bounded(int, "a whole number of calls, 0 or more")


def judge_role(text: str) -> tuple[str, str]:
    role, sep, spec = text.partition("=")
    if not sep or not role.startswith("judge_") or not spec:
        raise argparse.ArgumentTypeError(f"expected judge_ROLE=SPEC, got {text!r}")
    return role, spec


def add_price_flags(parser: argparse.ArgumentParser) -> None:
    """``--price ROLE=IN/OUT`` and ``--price-file`` (docs/cost.md)."""
    parser.add_argument("--price", action="append", metavar="ROLE=IN/OUT",
                        help="USD per 1M input/output tokens of a judge role (judge: every role), e.g. "
                        "judge=0.15/0.60; repeatable (docs/cost.md)")
    parser.add_argument("--price-file", type=Path, metavar="YAML",
                        help="prices by role, judge spec or model name: KEY: IN/OUT (docs/cost.md)")


def settings_flags(args: argparse.Namespace) -> dict[str, str]:
    """score's settings flags (they override what the samples log recorded): ``--judge``, ``--judge-role``,
    ``--knowledge`` and ``--set KEY=VALUE`` for any option the benchmark declares."""
    from hallu_metrics.registry import benchmark_for_task
    from hallu_metrics.settings import setting_keys

    benchmark = benchmark_for_task(args.task)
    flags = dict(args.set or [])
    unknown = sorted(set(flags) - set(benchmark.options))
    if unknown:
        known = ", ".join(benchmark.options) or "none"
        raise HallubenchError(f"--set {unknown[0]}: not a setting of {args.task} (its settings: {known})")
    flags.update(args.judge_role or [])
    stray = sorted(set(flags) - set(setting_keys(benchmark)))
    if stray:
        raise HallubenchError(f"--judge-role {stray[0]}: {args.task} has no such judge role (its roles: "
                              f"{', '.join(benchmark.judge_roles) or 'none'})")
    if args.judge:
        flags["judge"] = args.judge
    if args.knowledge:
        flags["knowledge"] = str(args.knowledge)
    return flags


def add_cap_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-cost", type=usd, metavar="USD",
                        help="refuse a run whose planned judge cost exceeds USD, and stop judging before the new calls "
                        "(cache hits are free) would pass it; needs prices (--price / --price-file; docs/cost.md)")
    parser.add_argument("--max-calls", type=call_count, metavar="N",
                        help="refuse a run whose planned judge calls exceed N, and stop judging before the N+1st new "
                        "call; the verdicts so far are kept (result and cache)")
