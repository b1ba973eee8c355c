"""Every judge reader against its reply corpus (tests/reply_corpora/*.yaml).

A corpus is a table of realistic judge replies, in the shapes real chat models write them (markdown,
fenced JSON, reasons before or after the label, echoed placeholders, refusals to judge, empty or
truncated replies), with the reading each must get. ``expected: null`` means unreadable: the reader
must return None, never a guessed label. Add a case whenever a new reply shape is seen.

The readers are the registry's: every ``Check.parse`` of every benchmark's ``checks`` (a partial or a lambda is
traced to the function it calls) and every benchmark's ``answer_readers`` (readers of the model's own replies). A
reader without a corpus of MIN_CASES replies, a check whose parse (with its bound key or labels) reads no corpus
as written, and a corpus whose reader nothing uses all fail.

File format::

    reader: package.module:function      # called as function(reply, *args, **kwargs)
    args: [...]                          # optional, positional arguments after the reply
    kwargs: {...}                        # optional
    field: name                          # optional: compare result[name] (readers returning dicts)
    provenance: who wrote the cases and from what
    cases:
      - shape: fenced json               # what kind of reply this is
        reply: "..."
        expected: true                   # or a label, number, list, or null
        args / kwargs: ...               # optional per-case overrides
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from hallu_metrics.benchmarks.anah.readers import verbatim
from hallu_metrics.registry import BENCHMARKS

CORPORA = Path(__file__).parent / "reply_corpora"
MIN_CASES = 30

# Check parses that read nothing: ANAH's official replay keeps each reply as written (``verbatim``) and reads it
# with ``anah.readers.official_label``, the reference eval.py's own rule (tests/test_anah.py).
NOT_READERS = {verbatim}


def reader_function(parse: Callable) -> Callable:
    """The reader behind a ``Check.parse``: a partial's function, or the one project function a lambda calls (as in
    ``lambda text: parse_json_bool(text, "is_supported")``)."""
    while isinstance(parse, functools.partial):
        parse = parse.func
    if parse.__name__ != "<lambda>":
        return parse
    called = {parse.__globals__.get(name) for name in parse.__code__.co_names}
    called = [f for f in called if callable(f) and getattr(f, "__module__", "").startswith("hallu_metrics.")]
    assert len(called) == 1, f"{parse} calls {len(called)} project functions: give the Check a named reader"
    return called[0]


def reader_name(function: Callable) -> str:
    return f"{function.__module__}:{function.__qualname__}"


def _registered_readers() -> tuple[dict[Callable, str], list[tuple[str, Callable]]]:
    """Every reader of the project, from the registry: each check's parse (a judge's replies) and each benchmark's
    ``answer_readers`` (the model's own replies), with who uses it; and the (check, parse) pairs."""
    readers: dict[Callable, str] = {}
    parses: dict[int, tuple[str, Callable]] = {}
    for name, benchmark in sorted(BENCHMARKS.items()):
        for check in benchmark.checks:
            if check.parse is None or reader_function(check.parse) in NOT_READERS:
                continue
            readers.setdefault(reader_function(check.parse), f"{name} check {check.name}")
            parses.setdefault(id(check.parse), (f"{name}:{check.name}", check.parse))
        for function in benchmark.answer_readers:
            readers.setdefault(function, f"{name} answer reader")
    return readers, list(parses.values())


# Every reader of the project (function -> who uses it) and every check's own parse; each reader needs a corpus.
READERS, CHECK_PARSES = _registered_readers()


def _load(path: Path) -> dict[str, Any]:
    corpus = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(corpus, dict) and "reader" in corpus and "cases" in corpus, f"{path.name}: bad corpus"
    return corpus


def _reader(name: str):
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def _field(result: Any, corpus: dict[str, Any]) -> Any:
    """The part of a reading that the corpus compares (``field`` of a dict reading)."""
    return result[corpus["field"]] if "field" in corpus and result is not None else result


@functools.cache
def _corpora() -> dict[str, dict[str, Any]]:
    """Every corpus by file name, loaded once (read only)."""
    return {path.name: _load(path) for path in sorted(CORPORA.glob("*.yaml"))}


def _cases() -> list:
    params = []
    for filename, corpus in _corpora().items():
        for number, case in enumerate(corpus["cases"]):
            params.append(pytest.param(corpus, case, id=f"{Path(filename).stem}-{number}-{case.get('shape', '')}"))
    return params


@pytest.mark.parametrize("corpus, case", _cases())
def test_reader_reads_corpus_reply(corpus, case):
    """The reader gives the expected reading (None = unreadable) for each reply of its corpus."""
    args = case.get("args", corpus.get("args", []))
    kwargs = {**corpus.get("kwargs", {}), **case.get("kwargs", {})}
    result = _field(_reader(corpus["reader"])(case["reply"], *args, **kwargs), corpus)
    assert result == case["expected"], f"{case.get('shape')}: {case['reply']!r}"
    if case["expected"] is None or isinstance(case["expected"], bool):
        assert result is case["expected"]


def test_every_reader_has_a_large_enough_corpus():
    """Each reader of the registry (check parses and answer readers) has a corpus of at least MIN_CASES replies,
    unreadable ones among them; every corpus reads with a reader the registry uses."""
    sizes: dict[Callable, int] = {}
    unreadable: dict[Callable, int] = {}
    for filename, corpus in _corpora().items():
        reader = _reader(corpus["reader"])
        assert reader in READERS, f"{filename}: {corpus['reader']} is no check's parse and no benchmark's answer reader"
        sizes[reader] = sizes.get(reader, 0) + len(corpus["cases"])
        unreadable[reader] = unreadable.get(reader, 0) + sum(1 for case in corpus["cases"] if case["expected"] is None)
        assert corpus.get("provenance"), f"{filename} states no provenance"
    missing = sorted(f"{reader_name(r)} ({user})" for r, user in READERS.items() if sizes.get(r, 0) < MIN_CASES)
    assert not missing, f"readers with fewer than {MIN_CASES} corpus replies: {missing}"
    assert all(unreadable[r] > 0 for r in READERS), "a corpus without unreadable replies"


@pytest.mark.parametrize("check, parse", CHECK_PARSES, ids=[name for name, _ in CHECK_PARSES])
def test_each_check_reads_a_corpus_as_written(check, parse):
    """A check's parse, with the arguments it binds (the JSON key, the labels), reads a corpus of its own: MIN_CASES
    replies of its reader's corpora, unreadable ones among them, that set no arguments of their own and each give the
    expected reading (a check sharing a reader with another needs replies in its own terms, not the other's)."""
    reader = reader_function(parse)
    matching = []
    for corpus in _corpora().values():
        if _reader(corpus["reader"]) is not reader:
            continue
        cases = [c for c in corpus["cases"] if "args" not in c and "kwargs" not in c]
        if cases and all(_field(parse(c["reply"]), corpus) == c["expected"] for c in cases):
            matching.extend(cases)
    assert matching, f"{check}: no corpus of {reader_name(reader)} is read as written by this check's parse"
    assert len(matching) >= MIN_CASES, f"{check}: its corpus has {len(matching)} replies, fewer than {MIN_CASES}"
    assert any(case["expected"] is None for case in matching), f"{check}: its corpus has no unreadable reply"


def test_judge_less_benchmarks_declare_their_answer_readers():
    """A benchmark without a judge reads the model's own replies: it names its readers (so they need a corpus)."""
    assert all(b.answer_readers for b in BENCHMARKS.values() if not b.judge_roles)
    assert {"extract_judgement", "extract_official", "read_keyword", "read_choice"} <= {
        f.__name__ for b in BENCHMARKS.values() for f in b.answer_readers}
