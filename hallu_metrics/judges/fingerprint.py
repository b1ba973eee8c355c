"""What a benchmark's judges are sent, as data, for the results' ``judge_prompts_hash``.

A check's fingerprint is its conversation rendered on a synthetic item whose every field reads as the placeholder
``{field}`` (templates, few-shot blocks and system turns as sent), the reminder turn, the decoding parameters, the
structured-output schema and the identity of the reader, the rule and the classifier mapping. The hash covers the
fingerprints of the checks a benchmark declares (``Benchmark.checks``), so editing a prompt word, a worked example,
the reminder, ``max_tokens`` or the reader changes it, while editing a comment or a docstring does not (no source
text is read). A user template file (``template=PATH``) is recorded in the judge's public spec instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges import llm
from hallu_metrics.judges.base import Check
from hallubench.core.provenance import prompts_hash

_RENDER_ERRORS = (TypeError, KeyError, ValueError, AttributeError, IndexError)


class _Item(dict):
    """A synthetic item: each field reads as ``{field}``; a field named in ``records`` reads as a list of one such
    item (fields ``{field.key}``), for prompts that format each record of a list (e.g. evidence passages). Every
    field read is appended to ``read``."""

    def __init__(self, records: frozenset[str], read: list[str], prefix: str = "") -> None:
        super().__init__()
        self.records, self.read, self.prefix = records, read, prefix

    def __missing__(self, key: str) -> Any:
        name = f"{self.prefix}{key}"
        self.read.append(name)
        return [_Item(self.records, self.read, f"{name}.")] if name in self.records else "{" + name + "}"

    def get(self, key: str, default: Any = None) -> Any:
        return self[key]


def _on_placeholders(function: Callable[[dict], Any], name: str) -> Any:
    """``function`` (a check's ``messages`` or ``pair``) applied to a synthetic item. A field whose use as text
    fails is retried as a list of records, one field at a time; a function that still fails is an error."""
    records: set[str] = set()
    while True:
        read: list[str] = []
        try:
            return function(_Item(frozenset(records), read))
        except _RENDER_ERRORS as exc:
            if not read or read[-1] in records:
                raise ValueError(f"check {name!r} cannot be rendered on placeholder fields") from exc
            records.add(read[-1])


def _identity(function: Callable | None) -> str | None:
    """``module.qualname`` of a callable: which reader, rule or mapping runs, whatever the comments say."""
    if function is None:
        return None
    qualname = getattr(function, "__qualname__", type(function).__qualname__)
    return f"{getattr(function, '__module__', type(function).__module__)}.{qualname}"


def check_fingerprint(check: Check) -> dict[str, Any]:
    """What every judge kind is sent or runs for ``check``, as JSON-able data."""
    structured = check.structured
    llm_asked = check.messages is not None
    return {
        "name": check.name,
        "messages": _on_placeholders(check.messages, check.name) if llm_asked else None,
        "reminder": check.reminder,
        "reader": _identity(check.parse),
        "max_tokens": check.max_tokens,
        "temperature": llm.TEMPERATURE if llm_asked else None,
        "structured": None if structured is None else {
            "schema": structured.schema, "to_text": _identity(structured.to_text)},
        "rule": _identity(check.rule),
        "pair": list(_on_placeholders(check.pair, check.name)) if check.pair is not None else None,
        "from_probability": _identity(check.from_probability),
    }


def judge_prompts_hash(benchmark: Benchmark) -> str:
    """``sha256:`` + 16 hex digits over the fingerprints of the checks the benchmark's chain may ask (sorted)."""
    return prompts_hash(sorted(json.dumps(check_fingerprint(c), sort_keys=True, ensure_ascii=True)
                               for c in benchmark.checks))
