"""What a judge is asked (a ``Check``) and what it answers (a ``Verdict``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Protocol, Sequence

from hallubench.backends.base import Message

Label = Any  # bool or str, depending on the check


@dataclass(frozen=True)
class Verdict:
    """A judge's answer for one item. ``label`` is None unless ``status == "ok"``."""

    label: Label
    status: str  # "ok" | "unparseable" | "failed"
    raw: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Check:
    """One judging question, e.g. "is this response an abstention?".

    ``messages`` builds the LLM prompt for an item, ``parse`` reads a reply (None = unreadable),
    ``reminder`` is the follow-up turn sent once when a reply could not be read, and ``rule`` is
    the rule-based method for this question, when a published one exists.
    """

    name: str
    messages: Callable[[dict], list[Message]]
    parse: Callable[[str], Label | None]
    reminder: str
    rule: Callable[[dict], Label] | None = None
    max_tokens: int = 128


class Judge(Protocol):
    """Answers a check for many items at once."""

    spec: str  # public spec string (no secrets)

    def run(self, check: Check, items: Sequence[dict], desc: str = "") -> list[Verdict]: ...

    def report(self) -> dict[str, int]: ...


def failed_verdicts(records: Sequence[dict[str, Any]]) -> list[str]:
    """Error texts of the failed judge calls found in judged records (any verdict-valued field)."""
    return [v["raw"] for r in records for v in r.values() if isinstance(v, dict) and v.get("status") == "failed"]
