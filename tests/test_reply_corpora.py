"""Every judge reader against its reply corpus (tests/reply_corpora/*.yaml).

A corpus is a table of realistic judge replies, in the shapes real chat models write them (markdown,
fenced JSON, reasons before or after the label, echoed placeholders, refusals to judge, empty or
truncated replies), with the reading each must get. ``expected: null`` means unreadable: the reader
must return None, never a guessed label. Add a case whenever a new reply shape is seen.

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

import importlib
from pathlib import Path
from typing import Any

import pytest
import yaml

CORPORA = Path(__file__).parent / "reply_corpora"
MIN_CASES = 30

# Every judge reader of the project; each must have a corpus (module:function).
READERS = {
    "hallu_metrics.judges.parsing:parse_json_bool",
    "hallu_metrics.judges.parsing:parse_label",
    "hallu_metrics.faithfulness.rubric:parse_rubric_score",  # parse_score on the 1-5 scale
    "hallu_metrics.longform.claims:parse_claims",
    "hallu_metrics.longform.atomic_facts:parse_facts",
    "hallu_metrics.short_answer_qa:parse_grade",
    "hallu_metrics.faitheval.readers:read_choice",
    "hallu_metrics.faitheval.readers:read_keyword",
    "hallu_metrics.halueval.readers:extract_judgement",
    "hallu_metrics.halueval.readers:extract_official",
    "hallu_metrics.anah.readers:parse_facts",
    "hallu_metrics.anah.readers:parse_reference",
    "hallu_metrics.anah.readers:parse_hallucination",
}


def _load(path: Path) -> dict[str, Any]:
    corpus = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(corpus, dict) and "reader" in corpus and "cases" in corpus, f"{path.name}: bad corpus"
    return corpus


def _reader(name: str):
    module, _, function = name.partition(":")
    return getattr(importlib.import_module(module), function)


def _cases() -> list:
    params = []
    for path in sorted(CORPORA.glob("*.yaml")):
        corpus = _load(path)
        for number, case in enumerate(corpus["cases"]):
            params.append(pytest.param(corpus, case, id=f"{path.stem}-{number}-{case.get('shape', '')}"))
    return params


@pytest.mark.parametrize("corpus, case", _cases())
def test_reader_reads_corpus_reply(corpus, case):
    """The reader gives the expected reading (None = unreadable) for each reply of its corpus."""
    args = case.get("args", corpus.get("args", []))
    kwargs = {**corpus.get("kwargs", {}), **case.get("kwargs", {})}
    result = _reader(corpus["reader"])(case["reply"], *args, **kwargs)
    if "field" in corpus:
        result = result[corpus["field"]]
    assert result == case["expected"], f"{case.get('shape')}: {case['reply']!r}"
    if case["expected"] is None or isinstance(case["expected"], bool):
        assert result is case["expected"]


def test_every_reader_has_a_large_enough_corpus():
    """Each judge reader has a corpus of at least MIN_CASES replies, unreadable ones among them."""
    sizes: dict[str, int] = {}
    unreadable: dict[str, int] = {}
    for path in CORPORA.glob("*.yaml"):
        corpus = _load(path)
        sizes[corpus["reader"]] = sizes.get(corpus["reader"], 0) + len(corpus["cases"])
        unreadable[corpus["reader"]] = unreadable.get(corpus["reader"], 0) + sum(
            1 for case in corpus["cases"] if case["expected"] is None
        )
        assert corpus.get("provenance"), f"{path.name} states no provenance"
    missing = sorted(r for r in READERS if sizes.get(r, 0) < MIN_CASES)
    assert not missing, f"readers with fewer than {MIN_CASES} corpus replies: {missing}"
    assert all(unreadable.get(r, 0) > 0 for r in READERS if r in sizes)
