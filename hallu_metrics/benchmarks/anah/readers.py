"""ANAH-v2's readers: the answer split into the annotated sentences, the project's readers of the annotator's replies
(:func:`parse_facts`, :func:`parse_reference`, :func:`parse_hallucination`) and the official eval.py's readings of
them, replayed (:func:`official_label`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hallu_metrics.benchmarks.anah.prompts import NO_REFERENCE
from hallu_metrics.judges.parsing import Statement, decide, negated_before, statements, visible_reply
from hallu_metrics.longform.sentences import split_sentences

# ---------------------------------------------------------------- sentences

_ZH_SENTENCE = re.compile(r"(?<=[。！？；])|\n+")
_COLON_BREAK = re.compile(r"([:：])\s+")  # a colon and the white space after it, line breaks included


def split_answer(text: str, language: str) -> list[str]:
    """The annotated units, split as the official scorer splits. First, as the official splitter does, a colon's
    following white space (line breaks included) is squeezed (English: to one space; Chinese: removed), so a line
    ending in ":" ("Here are the key facts:") joins the next line instead of becoming a sentence of its own. Then
    Chinese splits after 。！？； and at line breaks; English at line breaks, after ';' and at sentence ends (segtok,
    which knows abbreviations such as "Dr." and "U.S.")."""
    if language == "zh":
        text = _COLON_BREAK.sub(r"\1", text)
        return [s.strip() for s in _ZH_SENTENCE.split(text) if s and s.strip()]
    text = _COLON_BREAK.sub(r"\1 ", text)
    return [s for line in re.split(r"\n+", text) for piece in re.split(r"(?<=;)\s+", line)
            for s in split_sentences(piece)]


# ---- readers: the replies as chat models write them (tags with markdown, spaces, other case or no <>, reasons
# around the tag, a final "Answer:" line, <think> blocks); an unreadable reply reads as None, never as a guess.

_ANSWER_MARK = re.compile(r"(?:\b(?:final\s+)?(?:answer|label|verdict|judge?ment|classification|output)|答案|结论|"
                          r"标签)\W{0,3}?[:：]", re.IGNORECASE)
_SEPARATOR = r"[\s_-]*"  # between the words of a label: "No Hallucination", "NoHallucination", "no_hallucination"
_REFUSAL = re.compile(r"^\W*(?:I(?:'m| am) sorry|sorry\b|I apologi[sz]e|I (?:cannot|can't|can not|won't|am unable|"
                      r"'m unable|am not able)\b|as an AI\b|抱歉|对不起|我无法|我不能)", re.IGNORECASE)
_ZH_NEGATION = re.compile(r"(?:不是|并非|不|没有|没|无|非)$")
_LABEL_BOUNDARY = re.compile(r"[/|>\]()，,]")  # a negation never reaches across these (it does into "not <" / "not [")
_DENIED = re.compile(r"\s*[:：]\s*(?:no|false|否|无)(?![A-Za-z])", re.IGNORECASE)  # "Facts present: No"
LabelForm = tuple[re.Pattern[str], re.Pattern[str], Any, Any]  # (tagged pattern, bare pattern, value, negated value)


def _forms(table: Sequence[tuple[str, Any, Any]]) -> list[LabelForm]:
    """Per label form (words, value, the value its negation states or None): the tagged form ``<Form>`` /
    ``[Form]`` and the bare form (not inside a longer word)."""
    compiled = []
    for words, value, negated in table:
        core = _SEPARATOR.join(re.escape(w) for w in words.split())
        compiled.append((re.compile(rf"[<\[]\s*{core}\s*[>\]]", re.IGNORECASE),
                         re.compile(rf"(?<![A-Za-z]){core}(?![A-Za-z])", re.IGNORECASE), value, negated))
    return compiled


_FACT_FORMS = _forms([("facts present", True, False), ("no facts", False, True), ("有事实", True, False),
                      ("无事实", False, True), ("没有事实", False, True)])
_HALLUCINATION_FORMS = _forms([("no hallucination", "ok", None), ("contradictory", "contradictory", None),
                               ("unverifiable", "unverifiable", None), ("无幻觉", "ok", None),
                               ("矛盾", "contradictory", None), ("无法验证", "unverifiable", None)])


def _values(text: str, forms: list[LabelForm], tagged: bool) -> set[Any]:
    """The labels ``text`` states in one way (tags or bare words). A form after a negation ("not <No Facts>", 不矛盾)
    or answered "no" ("Facts present: No") states its negated value, or nothing when it has none ("not
    contradictory" leaves unverifiable and no hallucination open)."""
    found = set()
    for tag, bare, value, negated in forms:
        for match in (tag if tagged else bare).finditer(text):
            prefix = _LABEL_BOUNDARY.split(text[:match.start()])[-1]  # "<No Hallucination> / <Contradictory>"
            denied = negated_before(prefix) or _ZH_NEGATION.search(prefix) or _DENIED.match(text, match.end())
            if not denied:
                found.add(value)
            elif negated is not None:
                found.add(negated)
    return found


def _one_label(reply: str, forms: list[LabelForm]) -> Any:
    """The one label a reply concludes with, or None. Each statement of its own text (``judges.parsing.statements``:
    reasoning blocks, quoted material, hypotheticals and questions left out) is read for, strongest first, the
    label after an answer marker ("Final answer:", "**Label:**", ...), the tags (``<...>`` or ``[...]``), the label
    words standing alone; ``judges.parsing.decide`` keeps the final conclusion (a later take-back wins). Two
    different labels of the strongest kind (an echoed list of options, an undecided reply) read as None."""
    parts = statements(reply)
    if parts is None:
        return None

    def read(part: Statement) -> tuple[set[Any], set[Any], set[Any]]:
        marks = list(_ANSWER_MARK.finditer(part.text))
        after = part.text[marks[-1].end():] if marks else ""
        return (_values(after, forms, True) or _values(after, forms, False), _values(part.text, forms, True),
                _values(part.text, forms, False))

    return decide([(part, read(part)) for part in parts])


def parse_facts(text: str) -> bool | None:
    """Turn 1: True for Facts Present, False for No Facts (also 有事实 / 无事实), None when unreadable."""
    return _one_label(text, _FACT_FORMS)


_NOTHING_FOUND = re.compile(r"^\W*(?:none|n/?a|nothing(?: relevant)?(?: found)?|no relevant (?:reference )?"
                            r"information(?: (?:was )?found)?(?: in the (?:reference )?document)?|无相关信息|无)\W*$",
                            re.IGNORECASE)
# A sentence saying the document holds nothing relevant ("There is no relevant information in the document", "The
# document does not mention the height", 文档中没有相关信息), with no "but ..." that goes on to give some.
_NO_INFORMATION = re.compile(
    r"^\W*(?:(?:there\s+(?:is|are|was)\s+|there['\u2019]s\s+)?(?:no|not\s+any)\s+(?:relevant\s+|related\s+|"
    r"pertinent\s+)?(?:reference\s+)?(?:information|info|details?|content|mention|facts?)\b"
    r"|(?:there\s+is\s+|there['\u2019]s\s+)?nothing\s+(?:relevant|related|about|on)\b"
    r"|(?:the\s+|this\s+)?(?:reference\s+|given\s+|provided\s+)?(?:document|text|passage|reference|context)s?\s+"
    r"(?:(?:does|do|did)\s+not|doesn['\u2019]t|don['\u2019]t|didn['\u2019]t)\s+(?:contain|provide|include|mention|say|"
    r"give|state|have|discuss|cover)\b"
    r"|(?:the\s+)?(?:reference\s+)?(?:document|text|passage|reference|context)\s+(?:contains|has|provides|gives|"
    r"includes)\s+no\b"
    r"|(?:i\s+)?(?:could\s+not|couldn['\u2019]t|cannot|can['\u2019]t|did\s+not|didn['\u2019]t)\s+find\s+(?:any\s+)?"
    r"(?:relevant\s+)?(?:information|mention|reference|details?|anything|nothing)\b"
    r"|none\s+of\s+the\s+(?:document|text|passage|reference)\b"
    r"|not\s+(?:mentioned|found|stated|given)\b"
    r"|relevant\s+information\s*:\s*none\b"
    r"|[^，,但]*?(?:没有|未|并未|无)(?:找到)?[^，,但]*?(?:相关(?:的)?(?:信息|内容)|提及|提到|涉及))"
    r"(?!.*\b(?:but|however|although|except|only)\b)[^但]*$",
    re.IGNORECASE)
# Separators and echoed placeholders ("<SEP>", "[relevant information]", "<information 1>"): a reply of nothing else
# extracted nothing.
_PLACEHOLDER = re.compile(r"<\s*SEP\s*>|[\[<(]\s*(?:(?:relevant|reference)\s+)?(?:information|points?|info)"
                          r"(?:\s*\d+)?\s*[\]>)]", re.IGNORECASE)
_REFERENCE_SENTENCE = re.compile(r"(?<=[.!?\u3002\uff01\uff1f;\uff1b])\s*|\n+")


def parse_reference(text: str) -> str | None:
    """Turn 2: the extracted reference information (stripped, reasoning blocks removed); :data:`NO_REFERENCE` when
    the reply says there is none: "No Reference Information" anywhere (spaces, case, ``_`` / ``-`` ignored, as the
    official code reads it, or 无参考信息), a whole reply such as "None" / "No relevant information found.", or one
    whose every sentence says the document holds nothing relevant ("There is no relevant information in the
    document.", "The document does not mention the height.", 文档中没有相关信息); None for an empty reply, a
    refusal, a bare placeholder ("<SEP>") or one cut while thinking."""
    body = visible_reply(text)
    if body is None:
        return None
    squeezed = re.sub(r"[\s_-]+", "", body).lower()
    if "noreferenceinformation" in squeezed or "无参考信息" in squeezed:
        return NO_REFERENCE
    body = body.strip()
    if not re.search(r"\w", _PLACEHOLDER.sub(" ", body)):
        return None
    sentences = [s for s in _REFERENCE_SENTENCE.split(body.replace("*", "")) if re.search(r"\w", s)]
    if _NOTHING_FOUND.match(body) or all(_NO_INFORMATION.match(s) for s in sentences):
        return NO_REFERENCE
    return None if _REFUSAL.match(body) else body


def reference_passages(reference: str) -> list[str]:
    """A turn-2 reading as its passages: split on ``<SEP>``, none for :data:`NO_REFERENCE`."""
    if reference == NO_REFERENCE:
        return []
    return [part.strip() for part in re.split(r"<\s*SEP\s*>", reference) if part.strip()]


def parse_hallucination(text: str) -> str | None:
    """Turn 3: "ok" (No Hallucination), "contradictory" or "unverifiable" (also 无幻觉 / 矛盾 / 无法验证), None
    when unreadable."""
    return _one_label(text, _HALLUCINATION_FORMS)


# ---------------------------------------------------------------- the official eval.py, replayed

# What open-compass/ANAH eval/anah_v2/eval.py (process_question, evaluate_output) does with the annotator's replies:
# turn 1: only a reply that is exactly "<No Facts>" (or "<无事实>") ends the chain as nofact, anything else means facts
# present; turn 2: "noreferenceinformation" / "无参考信息" in the reply stripped, lower-cased and without spaces (only
# " ", not other white space) ends it as unverifiable, anything else is the reference; turn 3: the same squeezing,
# then the first of "nohallucination"/"无幻觉" (ok), "contradictory"/"矛盾", "unverifiable"/"无法验证" found, tried in
# that fixed order (not by position in the reply), else None; the score counts every sentence, None included, in
# the total and only contradictory + unverifiable as hallucinated. It reads the first reply of each turn (no
# reminder turn) and keeps asking where this project's readers stop (e.g. after "No Facts." or an unreadable turn 1).
_OFFICIAL_NO_FACTS = ("<No Facts>", "<无事实>")
_OFFICIAL_ORDER = (("nohallucination", "ok"), ("无幻觉", "ok"), ("contradictory", "contradictory"),
                   ("矛盾", "contradictory"), ("unverifiable", "unverifiable"), ("无法验证", "unverifiable"))


def _official_squeeze(reply: str) -> str:
    return reply.strip().replace(" ", "").lower()


def official_facts(reply: str) -> bool:
    """eval.py turn 1: facts present unless the reply is exactly the no-facts tag."""
    return reply not in _OFFICIAL_NO_FACTS


def official_no_reference(reply: str) -> bool:
    """eval.py turn 2: the reply says there is no reference information."""
    squeezed = _official_squeeze(reply)
    return "noreferenceinformation" in squeezed or "无参考信息" in squeezed


def official_hallucination(reply: str) -> str | None:
    """eval.py turn 3: the first label of the fixed order found in the squeezed reply; None if none is."""
    squeezed = _official_squeeze(reply)
    return next((label for form, label in _OFFICIAL_ORDER if form in squeezed), None)


def official_label(replies: Sequence[str]) -> str:
    """eval.py's label of one sentence from the first reply of each turn it asks (1 to 3 replies, as many as its
    flow needs; one too few is a ValueError); its None is "unreadable"."""
    if not official_facts(replies[0]):
        return "nofact"
    if len(replies) < 2:
        raise ValueError("the official flow asks turn 2 after this turn-1 reply")
    if official_no_reference(replies[1]):
        return "unverifiable"
    if len(replies) < 3:
        raise ValueError("the official flow asks turn 3 after this turn-2 reply")
    return official_hallucination(replies[2]) or "unreadable"


def verbatim(text: str) -> str:
    """The reply as written, for the official replay, which reads each first reply itself."""
    return text
