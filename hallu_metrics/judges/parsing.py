"""Tolerant parsers for judge replies. They return None when a reply cannot be read: an
unreadable verdict is recorded as such, never guessed.

Every reader reads the judge's own final conclusion (issue 34, docs/design.md "reader rules"), through one
shared pre-processing step: :func:`own_text` drops reasoning blocks and quoted material, :func:`statements`
cuts the rest into statements (hypothetical clauses and questions blanked, take-backs and conclusions marked),
and :func:`decide` keeps the reading of the last decisive statements."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


def _key_form(key: str) -> str:
    """A key as compared: case, ``_``, ``-`` and spaces ignored (``is_supported``, ``isSupported``)."""
    return re.sub(r"[\W_]", "", key).lower()


def _json_objects(text: str) -> list[dict]:
    objects = []
    for match in _OBJECT.finditer(text):
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
                objects.append({_key_form(str(k)): v for k, v in value.items()})
                break
    return objects


_THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)


def visible_reply(text: str) -> str | None:
    """The part of a reply that states the answer: after the last ``</think>`` of a reasoning model (DeepSeek-R1,
    Qwen3; also when the opening tag was in the prompt); None for a reply cut off inside its ``<think>`` block
    (it never reached an answer)."""
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        return text[closes[-1].end():]
    return None if _THINK_OPEN.search(text) else text


# ---------------------------------------------------------------- the judge's own words and its statements

_FENCE = re.compile(r"^[ \t]*```[ \t]*(?P<info>[\w+-]*)[ \t]*\n(?P<body>.*?)(?:```|\Z)", re.DOTALL | re.MULTILINE)
_QUOTED_LINE = re.compile(r"^[ \t]{0,3}>[ \t]?")


def own_text(reply: str) -> str | None:
    """The reply without what the judge did not write as its own answer: reasoning blocks (:func:`visible_reply`;
    None when cut off inside one), markdown blockquote lines (``> ...``: quoted material a model under test can
    plant a verdict in) and code fences that quote text. A fence holding JSON (```` ```json ````, or ``{``/``[``
    first) is the judge's own answer and is kept, as is a fence or a blockquote that is the whole reply."""
    text = visible_reply(reply)
    if text is None:
        return None
    whole = text.strip()

    def fence(match: re.Match[str]) -> str:
        body = match.group("body")
        own = (match.group("info").lower() == "json" or body.lstrip().startswith(("{", "["))
               or match.group(0).strip() == whole)
        return f"\n{body}\n" if own else "\n"

    lines = _FENCE.sub(fence, text).splitlines()
    quoted = [bool(_QUOTED_LINE.match(line)) for line in lines]
    if all(q for q, line in zip(quoted, lines) if line.strip()):
        return "\n".join(_QUOTED_LINE.sub("", line) for line in lines)
    return "\n".join(line for q, line in zip(quoted, lines) if not q)


@dataclass(frozen=True)
class Statement:
    """One statement of a judge reply (a sentence, a clause after ";", or a conclusion after ", so"), its
    markdown emphasis, list bullet and opening discourse marker removed, hypothetical clauses blanked.

    ``revises``: it opens with a conclusion or take-back marker ("So", "Therefore", "Wait", "Actually", "On
    second thought") or names a final answer, so a reading it states replaces every earlier one; ``retracts``: it
    opens with a take-back marker, so earlier readings are withdrawn even if it states none. ``first``/``last``:
    its position among the reply's statements; ``whole_line``: it is a line of the reply on its own. ``text``
    leaves out quotations of more than two words or of a labelled line (``says "Judgement: No"``: what it quotes is
    not what it states); ``full`` keeps them; ``opening`` is the marker removed ("Wait, no,")."""

    text: str
    full: str = ""
    opening: str = ""
    first: bool = True
    last: bool = True
    whole_line: bool = True
    revises: bool = False
    retracts: bool = False


_EMPHASIS = re.compile(r"\*+|__+|`+|^[ \t]*#+[ \t]*", re.MULTILINE)
_BULLET = re.compile(r"^[ \t]*(?:[-\u2022]|\d+[.)])[ \t]+")
_PUA = re.compile("[\ue000-\uf8ff]")
# Spans never split or blanked piecewise: JSON objects and double-quoted text.
_ATOMIC = re.compile(r"\{[^{}]*\}|\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+|(?<=[;\u3002\uff01\uff1f\uff1b])\s*")
# No statement ends after a line's opening initial ("B. Obama ...") or an abbreviation ("e.g.").
_ABBREVIATION = re.compile(r"(?:^[(\[]?[A-Z]|(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|Dr|Mr|Mrs|Ms|approx|U\.S))\.$")
_TAKE_BACK = (r"wait|hold on|hmm+|oops|actually|no wait|on (?:second|further) thought|(?:up)?on (?:reflection|"
              r"re-?reading|a (?:second|closer) look|closer (?:look|inspection|reading)|further review)|correction|"
              r"scratch that|let me (?:reconsider|re-?check|double-?check|re-?read|re-?examine|re-?evaluate|look again|"
              r"check again)|i (?:was wrong|made an? (?:mistake|error)|misread|misspoke)|等等|等一下|不对|再想想|更正")
_CONCLUDE = (r"so(?![\s-]+(?:far|that|much|many|called|long)\b)|therefore|thus|hence|in conclusion|to conclude|"
             r"in summary|to sum up|overall|all in all|ultimately|in the end|finally|in short|all things considered|"
             r"after all|as a result|consequently|所以|因此|综上所述|综上|总之")
# A conclusion or take-back inside a sentence starts a statement of its own: "..., so not supported", "... wait, ...".
_CLAUSE_OPENING = re.compile(
    r"\s*(?:[,:\u2014\u2013\uff0c]|\.\.\.|\s-)\s*(?=(?:so(?![\s-]+(?:far|that|much|many|called|long)\b)|therefore|"
    r"thus|hence|wait|no wait|hold on|on second thought|scratch that|correction|i was wrong|i misread|"
    r"i made an? (?:mistake|error))(?![A-Za-z]))", re.IGNORECASE)
_OPENING = re.compile(rf"^[\s(\[,.\u2014\u2013-]*(?:(?P<back>{_TAKE_BACK})|{_CONCLUDE})(?![A-Za-z])"
                      r"[\s,:;.!\u2014\u2013\uff0c\uff1a-]*", re.IGNORECASE)
_FINAL = re.compile(r"\bfinal(?:ly)?\s+(?:answer|verdict|grade|label|judge?ment|decision|score|rating|assessment|"
                    r"classification|conclusion|output|result)\b|最终", re.IGNORECASE)


def _split(line: str) -> list[str]:
    """A line's statements: cut after sentence ends (not after an initial or an abbreviation: "B. Obama"), after
    ";" and before a conclusion or take-back inside a sentence."""
    cuts = [m for m in _SENTENCE_END.finditer(line) if not _ABBREVIATION.search(line[:m.start()].rstrip("\"')]"))]
    pieces, start = [], 0
    for match in cuts:
        pieces.append(line[start:match.start()])
        start = match.end()
    pieces.append(line[start:])
    return [part for piece in pieces for part in _CLAUSE_OPENING.split(piece) if part.strip()]


_CONDITION = re.compile(r"(?<![A-Za-z])(?:only if|if|unless|provided(?: that)?|assuming|supposing|suppose|"
                        r"as long as|in case|otherwise|whether)(?![A-Za-z])|^\s*(?:had|were)\b|如果|假如|假设|要是|"
                        r"除非|只有", re.IGNORECASE)
_NOT_CONDITION = re.compile(r"\b(?:even|as|what)\s+$", re.IGNORECASE)  # "even if", "as if"
# "not sure if ...", "check if ...": an embedded question, blanked from the conjunction on, as "whether" and "unless".
_EMBEDDING = re.compile(r"\b(?:know|sure|certain|clear|unclear|ask|asks|asked|wonder|check|checking|see|determine|"
                        r"tell|decide|unsure|verify|doubt)\s+$", re.IGNORECASE)
_MODAL = re.compile(r"\b(?:would|could|might)\b|\w['\u2019]d\b", re.IGNORECASE)
_CONTRAST = re.compile(r"\s*(?:but|however|yet|though|still)\b", re.IGNORECASE)
_CLAUSE_MARK = re.compile(r"[,;:()\[\]\u2014\u2013\uff0c\uff1b\uff1a\uff08\uff09]|\s-\s")


def _asserted(text: str) -> str:
    """``text`` with what it does not assert blanked: a question entirely; in a sentence with a condition, the
    clause holding it ("would be X only if ...", "X if ..."), the clause right after a leading one ("If ..., X";
    not when the leading one has its own modal or the next opens with "but"), and every clause with a modal
    ("would", "could", "might", "'d"); an embedded question ("whether ...", "not sure if ...") and an "unless ..."
    from the conjunction on. "even if" / "as if" are no conditions."""
    if text.rstrip().endswith(("?", "\uff1f")):
        return ""
    conditions = [m for m in _CONDITION.finditer(text) if not _NOT_CONDITION.search(text[:m.start()])]
    if not conditions:
        return text
    marks = [0, *(m.end() for m in _CLAUSE_MARK.finditer(text)), len(text)]
    clauses = list(zip(marks, marks[1:]))
    blank = [False] * len(text)

    def clear(start: int, end: int) -> None:
        blank[start:end] = [True] * (end - start)

    conditional = False
    for match in conditions:
        index = next(i for i, (start, end) in enumerate(clauses) if start <= match.start() < end)
        start, end = clauses[index]
        word = match.group(0).strip().lower()
        if word in ("whether", "unless") or (word == "if" and _EMBEDDING.search(text[:match.start()])):
            clear(match.start(), end)
            conditional = conditional or word == "unless"
            continue
        conditional = True
        clear(start, end)
        if (not text[start:match.start()].strip(" ,;:([\u2014\u2013") and index + 1 < len(clauses)
                and not _MODAL.search(text[start:end]) and not _CONTRAST.match(text[slice(*clauses[index + 1])])):
            clear(*clauses[index + 1])
    if conditional:
        for start, end in clauses:
            if _MODAL.search(text[start:end]):
                clear(start, end)
    return "".join(" " if gone else char for char, gone in zip(text, blank))


def statements(reply: str) -> list[Statement] | None:
    """The statements of a reply's own text (:func:`own_text`; None when there is none to read), in order. Lines
    ending in ":" join the next line ("Verdict:" / "CORRECT"); JSON objects and quotations stay whole."""
    text = own_text(reply)
    if text is None:
        return None
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return chr(0xE000 + len(spans) - 1)

    text = _ATOMIC.sub(hold, _EMPHASIS.sub("", _PUA.sub("", text)))
    lines: list[str] = []
    for line in (_BULLET.sub("", raw).strip() for raw in text.splitlines()):
        if line and lines and lines[-1].endswith((":", "\uff1a")):
            lines[-1] = f"{lines[-1]} {line}"
        elif line:
            lines.append(line)
    found = []
    for line in lines:
        pieces = _split(line)
        for piece in pieces:
            revises = retracts = False
            body = piece
            while opening := _OPENING.match(body):
                revises, retracts = True, retracts or opening.group("back") is not None
                body = body[opening.end():]
            revises = revises or bool(_FINAL.search(body))
            asserted = _asserted(body)
            own = _PUA.sub(lambda m: _unquoted(spans[ord(m.group(0)) - 0xE000]), asserted).strip()
            if re.search(r"\w", _PUA.sub("x", asserted)) or retracts:
                full = _PUA.sub(lambda m: spans[ord(m.group(0)) - 0xE000], asserted).strip()
                found.append((own, full, piece[:len(piece) - len(body)].strip(), len(pieces) == 1, revises, retracts))
    return [Statement(own, full, opening, i == 0, i == len(found) - 1, whole, revises, retracts)
            for i, (own, full, opening, whole, revises, retracts) in enumerate(found)]


def _unquoted(span: str) -> str:
    """A held span as a statement's ``text`` reads it: a quotation of more than two words, or of a labelled line
    ("Judgement: No"), left out."""
    return " " if span[0] in "\"\u201c" and (len(span.split()) > 2 or ":" in span) else span


def decide(readings: Sequence[tuple[Statement, Sequence[set[T]]]]) -> T | None:
    """The reply's final conclusion from each statement's readings (value sets, the strongest kind of reading
    first, e.g. a JSON field before a stated label). A statement that revises and reads something, or that takes
    back ("Wait, ..."), starts the decisive part: what comes before it no longer counts, and a take-back followed
    by no reading leaves the reply unreadable. In the decisive part the strongest kind read decides: one value,
    or None when its statements conflict (two verdicts, neither taken back)."""
    start = 0
    for index, (part, found) in enumerate(readings):
        if part.retracts or (part.revises and any(found)):
            start = index
    decisive = [found for _, found in readings[start:]]
    for level in range(max((len(found) for found in decisive), default=0)):
        values = set().union(*(found[level] for found in decisive if level < len(found)))
        if values:
            return values.pop() if len(values) == 1 else None
    return None


def conclusion_text(reply: str) -> str | None:
    """The text a reply concludes with: its statements (:func:`statements`) from its last take-back on, one per
    line; None when cut off inside reasoning. For readers that look for words rather than one verdict."""
    parts = statements(reply)
    if parts is None:
        return None
    start = max((i for i, part in enumerate(parts) if part.retracts), default=0)
    return "\n".join(part.full for part in parts[start:])


# ---------------------------------------------------------------- lists (claims, atomic facts)

_ECHOED_MARKER = re.compile(r"^[<\s]*(?:BEGIN|END)(?:[ _][A-Z0-9 _]*)?(?:#[0-9a-f]+)?[>\s]*$")


def is_echoed_marker(line: str) -> bool:
    """A data-block marker a judge echoed back (``BEGIN``, ``END SENTENCE``, ``<<<BEGIN CHATBOT #1f0c9a2e>>>``): never a
    claim or fact of a list reply."""
    return bool(_ECHOED_MARKER.match(line.strip()))


_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(?P<item>.+?)\s*$")
_NOTHING = re.compile(r"(?:none|n/?a|nothing|no (?:verifiable |checkable |available |atomic |relevant )?"
                      r"(?:claims?|facts?)(?: (?:found|present|stated|to (?:list|extract)))?)"
                      r"(?:\s*[.:;,(\u2014\u2013-].*)?", re.IGNORECASE | re.DOTALL)
_HEADER = re.compile(r"^(?P<head>[^:\n]{1,120}?)\s*[:\uff1a]\s*(?P<rest>.*)$")
_LISTED = re.compile(r"\b(?:claims?|facts?)\b|事实", re.IGNORECASE)
_ANALYSIS = re.compile(r"\b(?:analysis|reasoning|explanation|notes?|thoughts?|thinking|rationale|justification|"
                       r"observations?|breakdown|steps?|comments?)\b", re.IGNORECASE)
_REVISED = re.compile(r"\b(?:final|revised|corrected|updated)\b", re.IGNORECASE)
_JSON_LIST = re.compile(r"\[[^\[\]]*\]|\{[^{}]*\}", re.DOTALL)


def _is_nothing(text: str) -> bool:
    """Whether a list item or line is the nothing-to-list marker: "None", "N/A", "NONE (a greeting)", "No facts"."""
    return bool(_NOTHING.fullmatch(text.strip().strip("*_`").strip()))


def _json_list(text: str) -> list[str] | None:
    """The strings of a JSON list reply (``["...", ...]``, or an object with one such list: ``{"facts": [...]}``),
    the whole text first, else the last such value in it; None when there is none."""
    stripped = text.strip()
    for candidate in (stripped, *reversed([m.group(0) for m in _JSON_LIST.finditer(stripped)])):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        lists = [v for v in value.values() if isinstance(v, list)] if isinstance(value, dict) else [value]
        if len(lists) == 1 and isinstance(lists[0], list) and all(isinstance(v, str) for v in lists[0]):
            return lists[0]
    return None


@dataclass
class _Block:
    kind: str  # "list" (under a claims/facts heading), "analysis", or "" (no heading)
    revised: bool
    items: list[str]
    nothing: bool = False


def _blocks(lines: list[str]) -> list[_Block]:
    """The reply's runs of list lines, each with the heading line before it (``Claims:``, ``Analysis:``). A
    nothing marker ("- None", "NONE", "Facts: none") marks its block as saying nothing is listed; "Claims: none"
    after bullets also withdraws them (they were the judge's analysis)."""
    blocks: list[_Block] = []
    heading, current = _Block("", False, []), None
    for line in lines:
        item = _LIST_ITEM.match(line)
        text = item.group("item") if item else line.strip()
        header = _HEADER.match(text.replace("*", ""))
        listed_none = header is not None and _LISTED.search(header.group("head")) and _is_nothing(header.group("rest"))
        if not text:
            continue
        if item is None and not _is_nothing(text) and not listed_none:
            current = None
            kind = ""
            if header and not header.group("rest"):
                head = header.group("head")
                kind = "list" if _LISTED.search(head) else "analysis" if _ANALYSIS.search(head) else ""
            heading = _Block(kind, bool(header and _REVISED.search(header.group("head"))), [])
            continue
        if current is None:
            current = _Block("list" if listed_none else heading.kind, heading.revised, [])
            blocks.append(current)
        if listed_none:
            current.items, current.nothing = [], True
        elif _is_nothing(text):
            current.nothing = True
        elif not is_echoed_marker(text):
            current.items.append(text)
    return blocks


def read_list(reply: str, says_nothing: Callable[[str], bool] | None = None) -> list[str] | None:
    """The items of a list reply (claims, atomic facts; docs/design.md reader rule 7), read from the judge's own
    text (:func:`own_text`): a JSON list, else the list lines ("- ", "* ", "1. ") kept verbatim. When the reply
    heads a list "Claims:" / "Facts:", only such lists count (the last ones from a "Final ..." heading on); lists
    under an analysis heading ("Analysis:", "Notes:") never count. Nothing-to-list markers ("- None", "N/A",
    ``["NONE"]``, "Claims: none", or ``says_nothing(text)``) are never items and make a reply without items
    ``[]``; echoed data-block markers are dropped; a reply with neither items nor a marker is None."""
    text = own_text(reply)
    if text is None:
        return None
    listed = _json_list(text)
    if listed is not None:
        items = [item.strip() for item in listed if item.strip()]
        kept = [item for item in items if not _is_nothing(item) and not is_echoed_marker(item)]
        return kept
    blocks = _blocks(text.splitlines())
    headed = [block for block in blocks if block.kind == "list"]
    if headed:
        revised = [i for i, block in enumerate(headed) if block.revised]
        chosen = headed[revised[-1]:] if revised else headed
    else:
        chosen = [block for block in blocks if block.kind != "analysis"]
    items = [item for block in chosen for item in block.items]
    if items:
        return items
    nothing = any(block.nothing for block in chosen) or (says_nothing is not None and says_nothing(text))
    return [] if nothing else None


# ---------------------------------------------------------------- booleans, labels, scores

_BOOL_WORDS = {"true": True, "false": False, "yes": True, "no": False}
_NEGATION_WINDOW = 4  # words before a label, within its sentence, that may negate it
_NEGATORS = frozenset({"not", "no", "never", "cannot"})
_NEGATION_SCOPE = re.compile(r"[.;:!?\n]")


def negated_before(prefix: str) -> bool:
    """True when one of the last few words of ``prefix`` (same sentence) is a negation: "not", "no",
    "never", "cannot" or a word ending in "n't" ("isn't CORRECT", "not entirely CORRECT")."""
    sentence = _NEGATION_SCOPE.split(prefix.replace("\u2019", "'"))[-1]
    words = re.findall(r"[\w']+", sentence.lower())[-_NEGATION_WINDOW:]
    return any(word in _NEGATORS or word.endswith("n't") for word in words)


def _key_pattern(key: str) -> str:
    """``key`` as written in any of the usual ways: ``is_supported``, ``isSupported``, ``Is supported``."""
    words = re.findall(r"[A-Za-z][a-z]*|\d+", key)
    return r"[_\s-]?".join(re.escape(word) for word in words)


def _prose_stem(key: str) -> str:
    """The word a judge writes for a boolean key in prose: its last word without -ing/-ed/-able ("supported" ->
    "support", "is_abstaining" -> "abstain", "does_believe" -> "believe")."""
    word = re.findall(r"[A-Za-z][a-z]*", key)[-1].lower()
    return re.sub(r"(?:ing|ed|able)$", "", word) if len(word) > 6 else word


def parse_json_bool(text: str, key: str) -> bool | None:
    """Read ``{"key": true|false}`` as the judge concludes it (:func:`decide` over :func:`statements`): JSON
    (fenced or not, single quotes, Python ``True``), ``key: false`` / ``**key**: true.`` lines, the key in any
    case or spelling (``isSupported``); after a take-back or conclusion ("Wait, ... so actually not supported"),
    also the key's word in prose ("supported", "not supported", "unsupported").

    Only a value that is exactly a boolean (``true``/``false``, quoted or not; ``"yes"``/``"no"``) is a verdict.
    An echoed template (``true|false``, ``true/false``, ``true or false``, ``<bool>``), a truncated value or
    prose is not, so a reply with no other statement is unreadable (None); two different verdicts are too,
    unless the later one takes the earlier back.
    """
    parts = statements(text)
    if parts is None:
        return None
    field = re.compile(rf"(?<![A-Za-z0-9])[\"'\s]*{_key_pattern(key)}[\"']*\s*[:=]\s*(?P<value>[^,}}\n]*)",
                       re.IGNORECASE)
    stem = _prose_stem(key)
    prose = re.compile(rf"(?<![A-Za-z])(?P<un>un)?{stem}[a-z]*", re.IGNORECASE)

    def read(part: Statement) -> tuple[set[bool], set[bool]]:
        values = {_BOOL_WORDS[value] for match in field.finditer(part.text)
                  if (value := match.group("value").strip().strip("\"'").strip().rstrip(".!").lower()) in _BOOL_WORDS}
        words = set()
        if part.revises:
            words = {not (match.group("un") or negated_before(part.text[:match.start()])) for match in prose.finditer(
                _OBJECT.sub(" ", part.text))}
        return values, words

    return decide([(part, read(part)) for part in parts])


_MARKERS = (r"(?:(?:my|the)\s+)?(?:final\s+)?(?:verdict|answer|label|judge?ment|grade|grading|decision|"
            r"classification|rating|evaluation|assessment|result|output)(?:\s+is)?")
_AFTER_LABEL = r"(?=\s*$|\s*[.,;:!)\]\-\u2013\u2014(]|\s+(?:because|since|as|given)\b)"
_SUBJECT = (r"(?:it|this|that|answer|reply|response|chatbot|prediction|output|claim|statement|grade|verdict|label|"
            r"judge?ment|assessment|rating|evaluation|result|classification|attempt)")
_COPULA = r"(?:is|was|['\u2019]s|would\s+be|seems(?:\s+to\s+be)?|appears(?:\s+to\s+be)?)"
_NEG_COPULA = r"(?:is\s+not|isn['\u2019]t|was\s+not|wasn['\u2019]t|would\s+not\s+be|['\u2019]s\s+not|is\s+never)"
_ADVERB = r"(?:(?:therefore|thus|hence|clearly|definitely|indeed|also|still|so|entirely|fully|simply|then)\s+)?"
_CLOSING_END = r"\s*(?:[.!]\s*|[:;,(\u2014\u2013-]\s*.*|\s(?:because|since|as|given)\b.*)?$"
_SAYS = (r"\bI(?:['\u2019]d|\s+would)?\s+(?:say|judge|rate|grade|label|call|mark|classify)(?:\s+(?:it|this|that|the\s+"
         r"(?:answer|reply|response)))?(?:\s+as)?\s+")
# Words that start a grader's explanation after a grade letter ("C. The reply ..."); any other capitalised word
# after "B." may be a name with its initial ("B. Obama matches ..."), so the letter is not read as a grade there.
_OPENERS = frozenset(
    "the this that these those it its it's reply response answer gold model predicted prediction both although "
    "because since while however here they he she his her i a an no not yes there as in on to for with based given "
    "grade explanation reason reasoning note different same partially only neither either one none nothing wrong "
    "right correct incorrect matches mismatch names gives states says provides contains refuses declines abstains "
    "hedges fully attempted".split())


class VerdictReader:
    """Reads which of a fixed set of labels a judge reply states as its verdict (section "reader rules" of
    docs/design.md). ``labels`` maps each spelling to its canonical label; all-capital single letters (grade
    letters) match case-sensitively, words in any case. ``negations`` maps a label to the one its negation
    states ("not CORRECT" -> INCORRECT); a negated label without one is no verdict. Each statement of the
    reply (:func:`statements`) is read for

    1. a JSON field ``key``;
    2. a stated verdict: ``Verdict: X`` / ``Final answer: **X**`` (any of the usual marker words), ``I'd say X``,
       a first (or revising) statement that starts with the label (``INCORRECT. The chatbot ...``, ``(C)``), or
       a statement that is only the label;
    3. in the last or a revising statement, a closing ``it/the answer is X.`` (``... target: X``) when it names
       no other label;
    4. the opposite of a label stated negated in one of these ways ("The answer is not correct."): the weakest
       reading, so "not correct; it is unverifiable" reads UNVERIFIABLE;

    and :func:`decide` keeps the final conclusion: the strongest kind stated, a later take-back winning; several
    different verdicts are unreadable. A label inside an instruction, a quotation, a hypothetical or a
    discussion of the options is not a verdict.
    """

    def __init__(self, labels: dict[str, str], key: str, negations: dict[str, str] | None = None):
        self.key = _key_form(key)
        self.canonical = {spelling.lower(): label for spelling, label in labels.items()}
        self.negations = negations or {}
        alternatives = "|".join(
            re.escape(s) if len(s) == 1 and s.isupper() else f"(?i:{re.escape(s)})"
            for s in sorted(labels, key=len, reverse=True)
        )
        label = rf"(?P<neg>(?i:not)\s+)?[(\[<]?(?P<label>{alternatives})[)\]>]?"
        self._any = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")
        self._marked = re.compile(
            rf"(?:^|(?<=[.!?;,]))\s*(?:(?i:{_MARKERS})(?:\s*[:=\-\u2013]\s*|(?<=[Ii][Ss])\s+)|(?i:{_SAYS})){label}"
            rf"{_AFTER_LABEL}"
        )
        self._leading = re.compile(rf"^\s*{label}{_AFTER_LABEL}")
        self._alone = re.compile(rf"^\s*{label}\s*[.!]?\s*$")
        self._closing = re.compile(
            rf"(?:\b(?i:{_SUBJECT})\s*(?i:{_NEG_COPULA}|{_COPULA})\s+(?i:{_ADVERB})|"
            rf"[:\u2014\u2013]\s*){label}{_CLOSING_END}"
        )

    def _reading(self, match: re.Match[str] | None, found: tuple[set[str], set[str]], negated: bool = False) -> None:
        """Adds a matched label to ``found`` (stated, opposites): the label itself, or the opposite of a negated one."""
        if match is None:
            return
        label = self.canonical[match.group("label").lower()]
        if not (negated or match.group("neg")):
            found[0].add(label)
        elif label in self.negations:
            found[1].add(self.negations[label])

    def _initial(self, statement: str, match: re.Match[str]) -> bool:
        """Whether a leading grade letter is a name's initial: "B. Obama ..." (see ``_OPENERS``)."""
        after = re.match(r"\.\s+([A-Z][\w'\u2019-]*)", statement[match.end("label"):])
        label = match.group("label")
        return (len(label) == 1 and after is not None and after.group(1).lower() not in _OPENERS
                and after.group(1).lower() not in self.canonical)

    def _read(self, part: Statement) -> tuple[set[str], ...]:
        text = part.text
        fields = {
            self.canonical[value.strip().lower()]
            for obj in _json_objects(text)
            if isinstance(value := obj.get(self.key), str) and value.strip().lower() in self.canonical
        }
        prose = _OBJECT.sub(" ", text)
        stated: tuple[set[str], set[str]] = (set(), set())
        for match in self._marked.finditer(prose):
            self._reading(match, stated)
        if part.first or part.revises:
            leading = self._leading.match(prose)
            if leading is not None and not self._initial(prose, leading):
                self._reading(leading, stated)
        if part.whole_line or part.first or part.last or part.revises:
            self._reading(self._alone.match(prose), stated)
        closing: tuple[set[str], set[str]] = (set(), set())
        if (part.last or part.revises) and (match := self._closing.search(prose)):
            mentions = list(self._any.finditer(prose))
            negated = {negated_before(prose[: m.start()]) for m in mentions}
            if len({self.canonical[m.group(0).lower()] for m in mentions}) == 1 and len(negated) == 1:
                self._reading(match, closing, negated=negated.pop())
        return fields, stated[0], closing[0], stated[1] | closing[1]

    def __call__(self, text: str) -> str | None:
        parts = statements(text)
        if parts is None:
            return None
        return decide([(part, self._read(part)) for part in parts])


def parse_label(text: str, labels: tuple[str, ...], key: str = "verdict") -> str | None:
    """One of ``labels`` as the reply states its verdict (:class:`VerdictReader`); None when unreadable. A negated
    label reads as its opposite where the set has one (``X`` and ``INX`` / ``UNX``: "not correct" is INCORRECT)."""
    return _label_reader(tuple(labels), key)(text)


_READERS: dict[tuple[tuple[str, ...], str], VerdictReader] = {}


def _label_reader(labels: tuple[str, ...], key: str) -> VerdictReader:
    if (labels, key) not in _READERS:
        negations = {label: other for label in labels for other in labels
                     if other.upper() in (f"IN{label.upper()}", f"UN{label.upper()}")}
        _READERS[(labels, key)] = VerdictReader({label: label for label in labels}, key, negations)
    return _READERS[(labels, key)]


_BARE_SCORE = re.compile(
    r"(?<![A-Za-z])[\"'`]*(?:score|rating)[\"'`]*(?:\s*\(\s*\d+\s*(?:[-\u2013]|to)\s*\d+\s*\))?\s*[:=]\s*[\"'`]*\s*"
    r"(?P<value>-?\d+(?:\.\d+)?)(?P<after>\s*(?:[-\u2013|]|/|\bto\b|\bor\b|\bout\s+of\b)\s*\d+(?:\.\d+)?)?",
    re.IGNORECASE,
)
_INVALID = object()  # a score field whose value is no number


def parse_score(text: str, low: float, high: float, key: str = "score", integer: bool = True) -> float | None:
    """Read ``{"score": n}`` (or a bare ``score: n`` / ``rating: n``, ``**Score:** 4/5``, ``4 out of 5``) as the
    judge concludes it (:func:`decide` over :func:`statements`). A value outside [low, high], not a number, not a
    whole number when ``integer``, a score on another scale (``4/10``, ``4 out of 10``), an echoed range (``1-5``,
    ``1 to 5``, ``N``), or several different values not taken back make the reply unreadable (None): a score is
    never clipped or guessed."""
    parts = statements(text)
    if parts is None:
        return None
    key = _key_form(key)

    def number(value: object) -> object:
        if isinstance(value, (bool, dict, list)):
            return _INVALID
        try:
            return float(str(value))
        except ValueError:
            return _INVALID

    def read(part: Statement) -> tuple[set[object], set[object]]:
        fields = {number(obj[key]) for obj in _json_objects(part.text) if key in obj}
        bare = set()
        if key == "score":
            for match in _BARE_SCORE.finditer(part.text):
                after = match.group("after")
                if after is None or re.fullmatch(rf"\s*(?:/|out\s+of)\s*{high:g}", after, re.IGNORECASE):
                    bare.add(number(match.group("value")))
        return fields, bare

    found = decide([(part, read(part)) for part in parts])
    if not isinstance(found, float) or not low <= found <= high or (integer and not found.is_integer()):
        return None
    return int(found) if integer else found
