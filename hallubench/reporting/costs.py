"""Prices and the accounting's summary lines (docs/cost.md): ``--price ROLE=IN/OUT`` and ``--price-file`` read into
:class:`hallu_metrics.judges.accounting.Price`, and the "judge calls: ..." lines ``score`` prints."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import yaml

from hallu_metrics.judges.accounting import ALL_ROLES, Price
from hallubench.core.backends.client import CallStats, short_count, token_line
from hallubench.core.errors import HallubenchError


def _price_value(text: object, where: str) -> tuple[float, float]:
    """``IN/OUT`` (e.g. ``0.15/0.60``) or a mapping ``{input: IN, output: OUT}`` as two non-negative numbers."""
    if isinstance(text, Mapping) and set(text) == {"input", "output"}:
        parts: list[object] = [text["input"], text["output"]]
    elif isinstance(text, str) and text.count("/") == 1:
        parts = list(text.split("/"))
    else:
        raise HallubenchError(f"{where}: expected IN/OUT (USD per 1M input/output tokens, e.g. 0.15/0.60) or "
                              f"{{input: IN, output: OUT}}, got {text!r}")
    try:
        values = [float(p) for p in parts]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise HallubenchError(f"{where}: prices must be numbers, got {text!r}") from None
    if not all(math.isfinite(v) and v >= 0 for v in values):
        raise HallubenchError(f"{where}: prices must be finite and not negative, got {text!r}")
    return values[0], values[1]


def parse_price(text: str) -> tuple[str, Price]:
    """``--price ROLE=IN/OUT``: a judge role (``judge`` for every role) and its price."""
    role, sep, value = text.partition("=")
    if not sep or not role.strip():
        raise HallubenchError(f"--price {text!r}: expected ROLE=IN/OUT, e.g. judge=0.15/0.60")
    return role.strip(), Price(*_price_value(value.strip(), f"--price {text!r}"), source=f"--price {text}")


def load_price_file(path: Path) -> dict[str, Price]:
    """``--price-file``: YAML mapping a judge role, a public judge spec or a model name (the spec's ``model=``) to
    ``IN/OUT`` or ``{input: IN, output: OUT}``."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise HallubenchError(f"--price-file {path}: cannot read it as YAML ({type(exc).__name__})") from exc
    if not isinstance(data, dict) or not data:
        raise HallubenchError(f"--price-file {path}: expected a mapping of role or model to IN/OUT")
    return {str(key): Price(*_price_value(value, f"--price-file {path}: {key}"), source=f"{path}: {key}")
            for key, value in data.items()}


def gather_prices(flags: list[str] | None, price_file: Path | None, roles: tuple[str, ...] = ()) -> dict[str, Price]:
    """The prices of ``--price-file`` and ``--price`` flags (a flag overrides the file's entry of the same key); a
    flag must name one of ``roles`` or ``judge``."""
    prices = load_price_file(price_file) if price_file is not None else {}
    for text in flags or []:
        role, price = parse_price(text)
        if role not in (ALL_ROLES, *roles):
            raise HallubenchError(f"--price {text!r}: {role!r} is not a judge role here (roles: "
                                  f"{', '.join(dict.fromkeys((ALL_ROLES, *roles)))})")
        prices[role] = price
    return prices


def duration(seconds: float) -> str:
    """3 min 12 s, 45 s, 1 h 2 min."""
    whole = round(seconds)
    if whole < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def money(usd: float) -> str:
    return f"${usd:.2f}" if usd >= 0.01 or usd == 0 else f"${usd:.4f}"


def summary_line(name: str, entry: Mapping[str, Any], wall_seconds: float | None = None) -> str:
    """"judge: 412 calls (300 new, 112 cached), 1.2M prompt + 40k completion tokens, 3 min 12 s, $0.54"."""
    stats = CallStats(**{f.name: entry[f.name] for f in fields(CallStats)})
    parts = [f"{name}: {entry['calls']} calls ({entry['new']} new, {entry['cached']} cached)", token_line(stats)]
    if stats.failed:
        parts[0] += f", {stats.failed} failed"
    if wall_seconds is not None:
        parts.append(duration(wall_seconds))
    if entry.get("cost_usd") is not None:
        parts.append(money(entry["cost_usd"]) + ("" if entry.get("cost_complete", True) else " (at least)"))
    if stats.reused_prompt_tokens:
        parts.append(f"cache saved {short_count(stats.reused_prompt_tokens)} prompt tokens")
    if stats.prefix_cached_tokens:
        parts.append(f"{short_count(stats.prefix_cached_tokens)} prompt tokens from the server's prefix cache")
    return ", ".join(parts)


def summary_lines(account: Mapping[str, Any]) -> list[str]:
    """The total line, then one line per role when there are several."""
    lines = [summary_line("judge calls", account["total"], account["wall_seconds"])]
    if len(account["roles"]) > 1:
        lines += ["  " + summary_line(role, entry) for role, entry in account["roles"].items()]
    return lines
