"""Atomic facts of one sentence: FActScore's "break the sentence into independent facts" step (Min et al., 2023,
section 3.3), which WildHallucinations applies to every sentence of a response (Zhao et al., 2024, section 2.3).

``ATOMIC_FACTS`` is a judge ``Check`` on an item ``{"entity": ..., "sentence": ...}``; its label is the list of
facts (possibly empty: a sentence such as "I hope this helps!" states none). The prompt wording and the
demonstrations are this project's; FActScore's own prompt picks demonstrations per sentence by BM25 from a
fixed pool, here a fixed set of five covers the cases (appositions, coordination, pronouns resolved with the
entity, evaluative sentences, sentences without facts). LLM replies list one fact per line after ``- ``; the
word ``NONE`` alone means no facts; a reply with neither is unreadable (None), never guessed.

Offline stand-in (the rule judge): the sentence is split into clauses at semicolons and at a comma followed by
``and``/``but``/``while``/``whereas``; each clause of at least ``MIN_CLAUSE_WORDS`` words is one fact (a shorter
piece is joined to the clause before it), so a simple sentence is one fact. It does not resolve pronouns or
split appositions, so it finds fewer, longer facts than an LLM: a rough stand-in, not the paper's extractor. Its
reason (``why``) names the breaks it cut at and the pieces it joined.
"""

from __future__ import annotations

import re

from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.parsing import read_list
from hallu_metrics.judges.prompts import DATA_NOTICE, data_block

NO_FACTS = "NONE"
MIN_CLAUSE_WORDS = 3

# (entity, sentence, facts) written for this project.
DEMONSTRATIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("Lake Baikal",
     "Lake Baikal, located in southern Siberia, is the deepest lake in the world and holds about a fifth of the "
     "world's unfrozen fresh water.",
     ("Lake Baikal is located in southern Siberia.", "Lake Baikal is the deepest lake in the world.",
      "Lake Baikal holds about a fifth of the world's unfrozen fresh water.")),
    ("Ada Lovelace",
     "She worked with Charles Babbage on his proposed Analytical Engine and published the first algorithm meant "
     "for such a machine in 1843.",
     ("Ada Lovelace worked with Charles Babbage.", "Charles Babbage proposed the Analytical Engine.",
      "Ada Lovelace worked on the Analytical Engine.",
      "Ada Lovelace published the first algorithm meant for a machine like the Analytical Engine.",
      "Ada Lovelace published that algorithm in 1843.")),
    ("GraphQL",
     "GraphQL is a query language for APIs that Facebook developed internally in 2012 before releasing it "
     "publicly in 2015.",
     ("GraphQL is a query language for APIs.", "Facebook developed GraphQL.",
      "GraphQL was first developed for internal use.", "GraphQL was developed in 2012.",
      "GraphQL was released publicly in 2015.")),
    ("Peugeot 508", "Overall, it remains a popular choice among families looking for a comfortable sedan.",
     ("The Peugeot 508 is a popular choice among families.", "The Peugeot 508 is a comfortable sedan.")),
    ("Hoag's Object", "I hope this gives you a good overview!", ()),
)

_SYSTEM = (
    "You break one sentence of a text about an entity into atomic facts: short, independent statements, each "
    "giving exactly one piece of information. Every fact must stand alone: name the entity (or whatever a "
    "pronoun refers to) instead of writing 'it', 'she' or 'this'. Keep the sentence's own claims, add nothing "
    "it does not say, and leave out greetings, offers of help and remarks about the text itself.\n"
    f"Write one fact per line, each line starting with '- '. If the sentence states no fact, write {NO_FACTS}."
)

_ENDS_SENTENCE = re.compile(r"[.!?][\"')\]\u201d\u2019]*$")
_CLAUSE_BREAK = re.compile(r"\s*;\s+|,\s+(?:and|but|while|whereas)\s+", re.IGNORECASE)


def _shot(entity: str, sentence: str) -> str:
    return f"{data_block('entity', entity)}\n{data_block('sentence', sentence)}\nFacts:"


_SHOTS = "\n\n".join(  # rendered once: every extraction call sends the same demonstrations
    f"{_shot(entity, sentence)}\n" + ("\n".join(f"- {fact}" for fact in facts) if facts else NO_FACTS)
    for entity, sentence, facts in DEMONSTRATIONS
)


def _messages(item: dict) -> list[dict[str, str]]:
    prompt = f"{_SHOTS}\n\n{_shot(item['entity'], item['sentence'])}"
    return [{"role": "system", "content": f"{_SYSTEM}\n{DATA_NOTICE}"}, {"role": "user", "content": prompt}]


def parse_facts(text: str) -> list[str] | None:
    """Facts listed one per line after ``- `` (or ``*``, a bullet, ``1.``) or as a JSON list, read by the shared
    list reader (``judges.parsing.read_list``: reasoning blocks, quoted material and analysis lists left out, the
    "Facts:" list when headed), duplicates and echoed data-block markers (``BEGIN``, ``END SENTENCE``) dropped;
    ``[]`` for ``NONE`` (also "- None", "N/A", ``{"facts": ["NONE"]}``, "Facts: none"); None when the reply lists
    nothing."""
    facts = read_list(text)
    return None if facts is None else list(dict.fromkeys(facts))


def split_clauses(sentence: str) -> list[str]:
    """The offline stand-in: one fact per clause (see the module docstring). A piece too short to be a
    clause stays joined, with its original wording, to the clause before it (or after it, when first)."""
    text = sentence.strip()
    cuts = [0, *(i for m in _CLAUSE_BREAK.finditer(text) for i in m.span()), len(text)]
    spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2)]
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        short = len(text[start:end].split()) < MIN_CLAUSE_WORDS
        if merged and (short or len(text[slice(*merged[-1])].split()) < MIN_CLAUSE_WORDS):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    clauses = [text[start:end].strip(" ,;") for start, end in merged]
    return [clause if _ENDS_SENTENCE.search(clause) else f"{clause}." for clause in clauses if clause]


def clause_reason(sentence: str) -> str:
    """Why ``split_clauses`` gave its facts: the clause breaks it cut at, and how many pieces were too short to stand
    alone."""
    breaks = [match[0].strip() for match in _CLAUSE_BREAK.finditer(sentence.strip())]
    facts = len(split_clauses(sentence))
    if not facts:
        return "an empty sentence: no fact"
    if not breaks:
        return "no clause break (a semicolon, or a comma before and/but/while/whereas): the sentence is one fact"
    cut = ", ".join(f'"{b}"' for b in breaks)
    joined = len(breaks) + 1 - facts
    short = f"; {joined} piece{'s' * (joined > 1)} under {MIN_CLAUSE_WORDS} words joined to a neighbour"
    return f"cut at {cut}: {facts} fact{'s' * (facts > 1)}{short if joined else ''}"


ATOMIC_FACTS = Check(
    name="atomic_facts",
    fields=("entity", "sentence"),
    messages=_messages,
    parse=parse_facts,
    reminder=f"List the facts one per line, each line starting with '- ', or write {NO_FACTS}.",
    rule=lambda item: split_clauses(item["sentence"]),
    why=lambda item: clause_reason(item["sentence"]),
    structured=structured.text_list("facts", NO_FACTS),
    max_tokens=256,
)
