"""Tolerant parsers for judge replies. They return None when a reply cannot be read: an
unreadable verdict is recorded as such, never guessed."""

from __future__ import annotations

import json
import re

_FENCE = re.compile(r"```(?:json)?", re.IGNORECASE)
_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


def _json_objects(text: str) -> list[dict]:
    objects = []
    for match in _OBJECT.finditer(_FENCE.sub(" ", text)):
        candidate = match.group(0)
        for attempt in (
            candidate,
            candidate.replace("'", '"'),
            re.sub(r"\b(True|False)\b", lambda m: m.group(1).lower(), candidate),
        ):
            try:
                value = json.loads(attempt)
            except ValueError:
                continue
            if isinstance(value, dict):
                objects.append({str(k).strip().lower(): v for k, v in value.items()})
                break
    return objects


_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)


def visible_reply(text: str) -> str | None:
    """The part of a reply that states the answer: after the last ``</think>`` of a reasoning model; None
    for a reply cut off inside its ``<think>`` block (it never reached an answer)."""
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        return text[closes[-1].end():]
    return None if _THINK_OPEN.search(text) else text


_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def final_text(reply: str) -> str | None:
    """A model's own answer without its reasoning (HaluEval, FaithEval read the model under test): closed
    ``<think>...</think>`` blocks removed, and everything before a lone ``</think>`` (the opening tag was in the
    prompt); None when nothing is left or a ``<think>`` block never closes (cut off while reasoning)."""
    text = _THINK_BLOCK.sub(" ", reply)
    lower = text.lower()
    if "</think>" in lower:
        text = text[lower.rindex("</think>") + len("</think>"):]
    elif "<think>" in lower:
        return None
    return text.strip() or None


_BOOL_FIELD = r"[*_`\"']*{key}[*_`\"']*\s*[:=]\s*(?P<value>[^,}}\n]*)"
_BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False}


def parse_json_bool(text: str, key: str) -> bool | None:
    """Read ``{"key": true|false}`` wherever the reply states it: JSON (fenced or not, single quotes, Python
    ``True``), ``key: false`` or ``**key**: true`` lines, after a ``<think>`` block.

    Only a value that is exactly a boolean (``true``/``false``, quoted or not; ``"yes"``/``"no"``) is a verdict.
    An echoed template (``true|false``, ``true/false``, ``true or false``, ``<bool>``), a truncated value or
    prose is not, so a reply with no other statement is unreadable (None); two different verdicts are too.
    """
    reply = visible_reply(text)
    if reply is None:
        return None
    pattern = re.compile(_BOOL_FIELD.format(key=re.escape(key)), re.IGNORECASE)
    values = set()
    for match in pattern.finditer(reply):
        value = match.group("value").strip().strip("*_`\"'").strip().lower()
        if value in _BOOL_WORDS:
            values.add(_BOOL_WORDS[value])
    return values.pop() if len(values) == 1 else None


_ECHOED_MARKER = re.compile(r"^[<\s]*(?:BEGIN|END)(?:[ _][A-Z0-9 _]*)?(?:#[0-9a-f]+)?[>\s]*$")


def is_echoed_marker(line: str) -> bool:
    """A data-block marker a judge echoed back (``BEGIN``, ``END SENTENCE``, ``<<<BEGIN CHATBOT #1f0c9a2e>>>``): never a
    claim or fact of a list reply."""
    return bool(_ECHOED_MARKER.match(line.strip()))


_NEGATION_WINDOW = 4  # words before a label, within its sentence, that may negate it
_NEGATORS = frozenset({"not", "no", "never", "cannot"})
_SENTENCE_END = re.compile(r"[.;:!?\n]")


def _negated(prefix: str) -> bool:
    """True when one of the last few words of ``prefix`` (same sentence) is a negation: "not", "no",
    "never", "cannot" or a word ending in "n't" ("isn't CORRECT", "not entirely CORRECT")."""
    sentence = _SENTENCE_END.split(prefix.replace("\u2019", "'"))[-1]
    words = re.findall(r"[\w']+", sentence.lower())[-_NEGATION_WINDOW:]
    return any(word in _NEGATORS or word.endswith("n't") for word in words)


_EMPHASIS = re.compile(r"\*+|__+|`+|^\s*#+\s*|^\s*>\s*", re.MULTILINE)
_MARKERS = (r"(?:(?:my|the)\s+)?(?:final\s+)?(?:verdict|answer|label|judge?ment|grade|grading|decision|"
            r"classification|rating|evaluation|assessment|result|output)(?:\s+is)?")
_AFTER_LABEL = r"(?=\s*$|\s*[.,;:!)\]\-\u2013\u2014(]|\s+(?:because|since|as|given)\b)"


class VerdictReader:
    """Reads which of a fixed set of labels a judge reply states as its verdict (section "reader rules" of
    docs/design.md). ``labels`` maps each spelling to its canonical label; all-capital single letters (grade
    letters) match case-sensitively, words in any case. The verdict is read where a reply states it:

    1. a JSON field ``key`` (conflicting JSON verdicts: unreadable);
    2. a stated verdict: a line ``Verdict: X`` / ``Final answer: **X**`` (any of the usual marker words), a
       first line that starts with the label (``INCORRECT. The chatbot ...``, ``(C)``), or a last line that is
       only the label; several different stated verdicts are unreadable;
    3. failing those, a closing sentence ``... is X.`` when the reply names no other label and never negates one.

    A label inside an instruction, a quotation or a discussion of the options is not a verdict.
    """

    def __init__(self, labels: dict[str, str], key: str):
        self.key = key
        self.canonical = {spelling.lower(): label for spelling, label in labels.items()}
        alternatives = "|".join(
            re.escape(s) if len(s) == 1 and s.isupper() else f"(?i:{re.escape(s)})"
            for s in sorted(labels, key=len, reverse=True)
        )
        label = rf"[(\[<]?(?P<label>{alternatives})[)\]>]?"
        self._any = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")
        self._marked = re.compile(
            rf"(?:^|(?<=[.!?;,]))\s*(?i:{_MARKERS})(?:\s*[:=\-\u2013]\s*|(?<=[Ii][Ss])\s+){label}{_AFTER_LABEL}"
        )
        self._leading = re.compile(rf"^\s*{label}{_AFTER_LABEL}")
        self._alone = re.compile(rf"^\s*{label}\s*[.!]?\s*$")
        self._closing = re.compile(
            rf"\b(?i:is|as|be|was)\s+(?:(?i:therefore|thus|clearly|hence)\s+)?{label}\s*[.!]?\s*$"
        )

    def _canon(self, spelling: str) -> str:
        return self.canonical[spelling.lower()]

    def __call__(self, text: str) -> str | None:
        reply = visible_reply(text)
        if reply is None:
            return None
        json_values = {
            self.canonical[value.strip().lower()]
            for obj in _json_objects(reply)
            if isinstance(value := obj.get(self.key), str) and value.strip().lower() in self.canonical
        }
        if json_values:
            return json_values.pop() if len(json_values) == 1 else None
        clean = _EMPHASIS.sub("", reply)
        lines = [line for line in clean.splitlines() if line.strip()]
        if not lines:
            return None
        stated = {self._canon(m.group("label")) for line in lines for m in self._marked.finditer(line)}
        for line, pattern in ((lines[0], self._leading), (lines[-1], self._alone)):
            if match := pattern.match(line):
                stated.add(self._canon(match.group("label")))
        if stated:
            return stated.pop() if len(stated) == 1 else None
        closing = self._closing.search(lines[-1])
        mentions = list(self._any.finditer(clean))
        if closing is None or len({self._canon(m.group(0)) for m in mentions}) != 1:
            return None
        if any(_negated(clean[: m.start()]) for m in mentions):
            return None
        return self._canon(closing.group("label"))


def parse_label(text: str, labels: tuple[str, ...], key: str = "verdict") -> str | None:
    """One of ``labels`` as the reply states its verdict (:class:`VerdictReader`); None when unreadable."""
    return _label_reader(tuple(labels), key)(text)


_READERS: dict[tuple[tuple[str, ...], str], VerdictReader] = {}


def _label_reader(labels: tuple[str, ...], key: str) -> VerdictReader:
    if (labels, key) not in _READERS:
        _READERS[(labels, key)] = VerdictReader({label: label for label in labels}, key)
    return _READERS[(labels, key)]


_BARE_SCORE = re.compile(
    r"[\"'*_`]*score[\"'*_`]*\s*[:=]\s*[\"'*_`]*\s*(-?\d+(?:\.\d+)?)(?P<after>\s*(?:[-\u2013|]|/|to\b|or\b)\s*\d+)?",
    re.IGNORECASE,
)


def parse_score(text: str, low: float, high: float, key: str = "score", integer: bool = True) -> float | None:
    """Read ``{"score": n}`` (or a bare ``score: n``, ``**Score:** 4/5``) from a reply, after a ``<think>``
    block. A value outside [low, high], not a number, not a whole number when ``integer``, an echoed range
    (``1-5``, ``1 to 5``, ``N``), or several different values make the reply unreadable (None): a score is
    never clipped or guessed."""
    reply = visible_reply(text)
    if reply is None:
        return None
    key = key.lower()
    values = {obj[key] for obj in _json_objects(reply) if key in obj and not isinstance(obj[key], (dict, list))}
    if not values and key == "score":
        for match in _BARE_SCORE.finditer(reply):
            after = match.group("after")
            out_of_high = after is not None and re.fullmatch(rf"\s*/\s*{high:g}", after)
            if after is not None and not out_of_high:
                continue  # "1-5", "1 to 5": the scale echoed, not a score
            values.add(match.group(1))
    numbers = set()
    for value in values:
        if isinstance(value, bool):
            return None
        try:
            numbers.add(float(value))
        except (TypeError, ValueError):
            return None
    if len(numbers) != 1:
        return None
    number = numbers.pop()
    if not low <= number <= high or (integer and not number.is_integer()):
        return None
    return int(number) if integer else number
