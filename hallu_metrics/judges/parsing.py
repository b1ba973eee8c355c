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


def parse_json_bool(text: str, key: str) -> bool | None:
    """Read ``{"key": true|false}`` anywhere in ``text`` (code fences, case, quotes, extra prose).

    Falls back to a bare ``key: true`` pattern; conflicting values make the reply unreadable.
    """
    key = key.lower()
    values = set()
    for obj in _json_objects(text):
        if key in obj:
            value = obj[key]
            if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
                value = value.strip().lower() in ("true", "yes")
            if isinstance(value, bool):
                values.add(value)
    if not values:
        pattern = rf"[\"']?{re.escape(key)}[\"']?\s*[:=]\s*[\"']?(true|false)\b"
        values = {m.group(1).lower() == "true" for m in re.finditer(pattern, text, re.IGNORECASE)}
    return values.pop() if len(values) == 1 else None


_NEGATION_WINDOW = 4  # words before a label, within its sentence, that may negate it
_NEGATORS = frozenset({"not", "no", "never", "cannot"})
_SENTENCE_END = re.compile(r"[.;:!?\n]")


def _negated(prefix: str) -> bool:
    """True when one of the last few words of ``prefix`` (same sentence) is a negation: "not", "no",
    "never", "cannot" or a word ending in "n't" ("isn't CORRECT", "not entirely CORRECT")."""
    sentence = _SENTENCE_END.split(prefix.replace("\u2019", "'"))[-1]
    words = re.findall(r"[\w']+", sentence.lower())[-_NEGATION_WINDOW:]
    return any(word in _NEGATORS or word.endswith("n't") for word in words)


def parse_label(text: str, labels: tuple[str, ...], key: str = "verdict") -> str | None:
    """Read one of ``labels`` from ``{"verdict": LABEL}`` or, failing that, from the text when exactly
    one distinct label occurs in it as a whole word (any case) and no occurrence is negated.

    Conflicting JSON verdicts, several different labels in the text, or a label under negation
    ("The answer is not CORRECT.") make the reply unreadable (None), never a guessed label.
    """
    canon = {label.lower(): label for label in labels}
    values = {
        canon[value.strip().lower()]
        for obj in _json_objects(text)
        if isinstance(value := obj.get(key), str) and value.strip().lower() in canon
    }
    if values:
        return values.pop() if len(values) == 1 else None
    words = "|".join(re.escape(label) for label in labels)
    matches = list(re.finditer(rf"(?<![\w-])(?:{words})(?![\w-])", text, re.IGNORECASE))
    found = {m.group(0).lower() for m in matches}
    if len(found) != 1 or any(_negated(text[: m.start()]) for m in matches):
        return None
    return canon[found.pop()]


_BARE_SCORE = re.compile(r"[\"']?score[\"']?\s*[:=]\s*[\"']?(-?\d+(?:\.\d+)?)", re.IGNORECASE)


def parse_score(text: str, low: float, high: float, key: str = "score", integer: bool = True) -> float | None:
    """Read ``{"score": n}`` (or a bare ``score: n``) from ``text``. A value outside [low, high], not a
    number, not a whole number when ``integer``, or several different values make the reply unreadable
    (None): a score is never clipped or guessed."""
    key = key.lower()
    values = {obj[key] for obj in _json_objects(text) if key in obj and not isinstance(obj[key], (dict, list))}
    if not values and key == "score":
        values = {m.group(1) for m in _BARE_SCORE.finditer(text)}
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
