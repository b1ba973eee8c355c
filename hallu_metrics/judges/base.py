"""What a judge is asked (a ``Check``) and what it answers (a ``Verdict``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from hallu_metrics.judges.structured import StructuredOutput
from hallubench.core.backends.base import Message

Label = Any  # bool, str or a number, depending on the check


@dataclass(frozen=True)
class Verdict:
    """A judge's answer for one item. ``label`` is None unless ``status == "ok"``. ``raw`` is the judge's reply (the
    rule judge's: ``rule``, or ``rule: REASON``); ``first_reply`` the LLM judge's first reply when it could not be
    read and the reminder turn was sent (``raw`` is then the reply to the reminder)."""

    label: Label
    status: str  # "ok" | "unparseable" | "failed"
    raw: str
    first_reply: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """The verdict as a record field; ``first_reply`` only when there was one."""
        return {k: v for k, v in asdict(self).items() if k != "first_reply" or v is not None}


@dataclass(frozen=True)
class Check:
    """One judging question, e.g. "is this response an abstention?", answerable by any judge kind.

    - LLM judges: ``messages`` builds the prompt, ``parse`` reads a reply (None = unreadable) and
      ``reminder`` is the follow-up turn sent once when a reply could not be read;
    - the rule judge: ``rule`` is the rule-based method, when a published one exists; ``why`` (optional) gives the
      reason for its label on an item (the phrase it matched, the overlap score, the evidence it used), written
      into the verdict's raw as ``rule: REASON`` (None: nothing to say, raw stays ``rule``);
    - classifier scorers (NLI / HHEM): ``pair`` gives (premise, hypothesis) and ``from_probability``
      turns P(consistent) into the label (default: the probability itself);
    - ``structured``: the reply's JSON schema, sent as ``response_format`` when the judge spec says
      ``structured=true`` (the reader stays the same);
    - ``listed``: a verdict given as one text that holds a list (ANAH's reference passages joined by ``<SEP>``) as
      that list, so that ``hallubench agreement`` compares it item by item.
    """

    name: str
    messages: Callable[[dict], list[Message]] | None = None
    parse: Callable[[str], Label | None] | None = None
    reminder: str = ""
    rule: Callable[[dict], Label] | None = None
    why: Callable[[dict], str | None] | None = None  # the rule's reason on an item (not a label: no fingerprint)
    pair: Callable[[dict], tuple[str, str]] | None = None
    from_probability: Callable[[float], Label] | None = None
    max_tokens: int = 128
    structured: StructuredOutput | None = None
    listed: Callable[[Label], list[str]] | None = None  # a one-text verdict as its items (agreement's claims kind)
    fields: tuple[str, ...] = ()  # the item's fields (what a judge template may insert), checked at every ask


class Judge(Protocol):
    """Answers one check for one item; judging pipelines await many of these at once."""

    spec: str  # public spec string (no secrets)

    async def ask(self, check: Check, item: dict) -> Verdict: ...

    def report(self) -> dict[str, int]: ...

    def close(self) -> None: ...


def failed_verdicts(records: Sequence[dict[str, Any]]) -> list[str]:
    """Error texts of the failed judge calls found in judged records (verdict-valued fields, also
    inside lists such as per-claim verdicts)."""

    def walk(value: Any) -> list[str]:
        if isinstance(value, dict):
            if value.get("status") == "failed" and "raw" in value:
                return [value["raw"]]
            return [text for v in value.values() for text in walk(v)]
        if isinstance(value, list):
            return [text for v in value for text in walk(v)]
        return []

    return [text for record in records for text in walk(record)]
