"""Entity extraction (WildHallucinations section 2.1) in three LLM passes:

1. *extract*: the extractor lists the proper nouns of one user turn (a JSON array of strings);
2. *verify*: the verifier confirms each distinct name is a proper noun naming one specific thing;
3. *ambiguity*: the verifier flags names with several meanings, which are removed.

The three requests are in ``prompts``.

Names are de-duplicated across the whole set with case and spacing folded; names of an earlier set
(``--exclude``) are dropped. Unreadable replies are counted and their names dropped, never guessed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hallubench.core.backends import ModelClient
from hallubench.core.errors import HallubenchError
from hallubench_generators.wildhallucinations.conversations import UserTurn
from hallubench_generators.wildhallucinations.prompts import ambiguity_request, extract_request, verify_request

MAX_NAME_CHARS = 100


def fold(name: str) -> str:
    """The de-duplication key: case folded, runs of white space collapsed."""
    return " ".join(name.casefold().split())


@dataclass
class Candidate:
    """A distinct name and the conversations it was found in (first seen first)."""

    entity: str
    conversation_ids: list[str]


_ARRAY = re.compile(r"\[.*?\]", re.DOTALL)


def parse_names(reply: str) -> list[str] | None:
    """Names from the first JSON array of strings in a reply; None when there is no such array."""
    for match in _ARRAY.finditer(reply):
        try:
            value = json.loads(match.group(0))
        except ValueError:
            continue
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return [" ".join(item.split()) for item in value if item.strip()]
    return None


def parse_yes_no(reply: str) -> bool | None:
    """True for a Yes, False for a No: the first word, else the only one of the two in the reply."""
    words = re.findall(r"[a-z]+", reply.lower())
    if words and words[0] in ("yes", "no"):
        return words[0] == "yes"
    found = {w for w in words if w in ("yes", "no")}
    return found.pop() == "yes" if len(found) == 1 else None


def extract(turns: Sequence[UserTurn], client: ModelClient, counts: Counter) -> list[tuple[str, str]]:
    """(name, conversation id) pairs in turn order; names absent from their turn (invented by the
    model) or longer than ``MAX_NAME_CHARS`` are dropped and counted."""
    replies = client.complete_or_raise([extract_request(t) for t in turns], desc="wildhallucinations: extract")
    found: list[tuple[str, str]] = []
    for turn, reply in zip(turns, replies):
        names = parse_names(reply)
        if names is None:
            counts["extract_unreadable"] += 1
            continue
        text = fold(turn.text)
        for name in names:
            if len(name) > MAX_NAME_CHARS or fold(name) not in text:
                counts["extracted_not_in_turn"] += 1
                continue
            counts["extracted"] += 1
            found.append((name, turn.conversation_id))
    return found


def merge(
    found: Iterable[tuple[str, str]], known: dict[str, Candidate], excluded: frozenset[str], counts: Counter
) -> list[Candidate]:
    """New distinct candidates, first spelling kept; repeats add their conversation to the known
    candidate; names of an excluded set are dropped and counted once each."""
    fresh: list[Candidate] = []
    for name, conversation_id in found:
        key = fold(name)
        if key in excluded:
            counts["excluded_earlier_set"] += key not in known
            known.setdefault(key, Candidate(name, []))
            continue
        if key in known:
            counts["duplicates"] += 1
            if conversation_id not in known[key].conversation_ids:
                known[key].conversation_ids.append(conversation_id)
            continue
        known[key] = Candidate(name, [conversation_id])
        fresh.append(known[key])
    return fresh


def _ask_yes_no(candidates: list[Candidate], build, client: ModelClient, desc: str) -> list[bool | None]:
    replies = client.complete_or_raise([build(c.entity) for c in candidates], desc=desc)
    return [parse_yes_no(r) for r in replies]


def screen(candidates: list[Candidate], verifier: ModelClient, counts: Counter) -> list[Candidate]:
    """Keep the candidates the verifier confirms as proper nouns and does not find ambiguous."""
    verdicts = _ask_yes_no(candidates, verify_request, verifier, "wildhallucinations: verify")
    verified = []
    for candidate, verdict in zip(candidates, verdicts):
        counts[{True: "verified", False: "not_proper_noun", None: "verify_unreadable"}[verdict]] += 1
        if verdict:
            verified.append(candidate)
    verdicts = _ask_yes_no(verified, ambiguity_request, verifier, "wildhallucinations: ambiguity")
    kept = []
    for candidate, verdict in zip(verified, verdicts):
        counts[{True: "ambiguous", False: "unambiguous", None: "ambiguity_unreadable"}[verdict]] += 1
        if verdict is False:
            kept.append(candidate)
    return kept


def load_excluded(sources: Sequence[str]) -> frozenset[str]:
    """Folded ``entity`` values of earlier sets: saved folders (``save_to_disk``) or Hub ids, all splits."""
    import datasets

    keys: set[str] = set()
    for source in sources:
        try:
            is_folder = Path(source).expanduser().is_dir()
            loaded = datasets.load_from_disk(source) if is_folder else datasets.load_dataset(source)
        except Exception as exc:
            raise HallubenchError(f"--exclude {source}: cannot load the set ({type(exc).__name__}: {exc})") from exc
        splits = loaded.values() if isinstance(loaded, datasets.DatasetDict) else [loaded]
        for split in splits:
            if "entity" not in split.column_names:
                raise HallubenchError(f"--exclude {source}: no 'entity' column")
            keys.update(fold(e) for e in split["entity"] if e)
    return frozenset(keys)

