"""WildChat-format conversations (Zhao et al., 2024): a Hub id (``allenai/WildChat-1M``, ``@REV`` pins
a revision) or a local JSON-lines / parquet file with WildChat's columns. Only English, non-toxic
user turns are kept (WildHallucinations section 2.1), judged by the dataset's own flags: the turn's
``language``/``toxic`` when present, else the conversation's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng

ENGLISH = "English"
MAX_TURN_CHARS = 4000  # a user turn is cut here before extraction (WildChat turns can hold whole files)


@dataclass(frozen=True)
class UserTurn:
    """One usable user turn: its conversation id and text."""

    conversation_id: str
    text: str


@dataclass
class ConversationSource:
    """The loaded table plus provenance; ``counts`` tallies turns kept and skipped (and why)."""

    table: Any  # a datasets.Dataset (memory-mapped)
    name: str
    revision: str
    counts: Counter = field(default_factory=Counter)

    def seeded_order(self, seed: int) -> list[int]:
        """All row indices in a seeded order (the sample of conversations the generator reads)."""
        order = list(range(len(self.table)))
        seeded_rng(seed, "wildhallucinations", "conversations").shuffle(order)
        return order

    def user_turns(self, indices: list[int]) -> Iterator[UserTurn]:
        """Usable user turns of the given rows, in row then turn order; skipped turns are counted."""
        for index in indices:
            row = self.table[index]
            self.counts["conversations_read"] += 1
            conversation_id = str(row.get("conversation_hash") or row.get("conversation_id") or f"row-{index}")
            for turn in row["conversation"] or []:
                if turn.get("role") != "user":
                    continue
                reason = skip_reason(turn, row)
                if reason:
                    self.counts[f"turns_skipped_{reason}"] += 1
                    continue
                self.counts["turns_used"] += 1
                yield UserTurn(conversation_id, str(turn["content"])[:MAX_TURN_CHARS])


def skip_reason(turn: dict, row: dict) -> str | None:
    """Why a user turn is not used: ``non_english``, ``toxic``, ``empty``; None when it is used."""
    language = turn.get("language") or row.get("language")
    toxic = turn.get("toxic") if turn.get("toxic") is not None else row.get("toxic")
    if language != ENGLISH:
        return "non_english"
    if toxic:
        return "toxic"
    if not str(turn.get("content") or "").strip():
        return "empty"
    return None


def _check_columns(table, name: str) -> None:
    missing = {"conversation"} - set(table.column_names)
    if missing or not ({"conversation_hash", "conversation_id"} & set(table.column_names)):
        raise HallubenchError(
            f"{name} is not in WildChat's format: need 'conversation' (list of {{role, content, language, toxic}}) "
            f"and 'conversation_hash' or 'conversation_id'; it has {', '.join(table.column_names)}"
        )


def load_conversations(source: str) -> ConversationSource:
    """Resolve ``--conversations``: a local ``.jsonl``/``.json``/``.parquet`` file or a Hub id[@REV]."""
    import datasets

    path = Path(source).expanduser()
    kind = {".jsonl": "json", ".json": "json", ".parquet": "parquet"}.get(path.suffix)
    if kind and not path.is_file():
        raise HallubenchError(f"conversations file {path} not found")
    if path.is_file():
        if kind is None:
            raise HallubenchError(f"unsupported conversations file {path} (expected .jsonl or .parquet)")
        try:
            table = datasets.load_dataset(kind, data_files=str(path), split="train")
        except Exception as exc:
            raise HallubenchError(f"cannot read conversations file {path}: {exc}") from exc
        name, revision = str(path), "local file"
    else:
        repo, _, revision = source.partition("@")
        try:
            table = datasets.load_dataset(repo, split="train", revision=revision or None)
        except Exception as exc:
            raise HallubenchError(
                f"cannot load conversations {source!r} ({type(exc).__name__}): give a Hub id such as "
                "allenai/WildChat-1M or a local .jsonl/.parquet file in WildChat's format"
            ) from exc
        name = f"HF {repo}"
        revision = revision or f"main (fingerprint {getattr(table, '_fingerprint', '')})"
    _check_columns(table, name)
    return ConversationSource(table, name, revision)
