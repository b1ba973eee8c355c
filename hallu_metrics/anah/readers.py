"""ANAH-v2's readers: the answer split into the annotated sentences, the project's readers of the annotator's replies
(:func:`parse_facts`, :func:`parse_reference`, :func:`parse_hallucination`) and the official eval.py's readings of
them, replayed (:func:`official_label`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from hallu_metrics.anah.prompts import NO_REFERENCE
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

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_ANSWER_MARK = re.compile(r"(?:\b(?:final\s+)?(?:answer|label|verdict|judge?ment|classification|output)|答案|结论|"
                          r"标签)\W{0,3}?[:：]", re.IGNORECASE)
_SEPARATOR = r"[\s_-]*"  # between the words of a label: "No Hallucination", "NoHallucination", "no_hallucination"
_REFUSAL = re.compile(r"^\W*(?:I(?:'m| am) sorry|sorry\b|I apologi[sz]e|I (?:cannot|can't|can not|won't|am unable|"
                      r"'m unable|am not able)\b|as an AI\b|抱歉|对不起|我无法|我不能)", re.IGNORECASE)
LabelForm = tuple[re.Pattern[str], re.Pattern[str], Any]  # (tagged pattern, bare pattern, value)


def _forms(table: Sequence[tuple[str, Any, tuple[str, ...]]]) -> list[LabelForm]:
    """Per label form (words, value, negations that must not precede it when it stands alone): the tagged form
    ``<Form>`` / ``[Form]`` and the bare form (not inside a longer word, not right after a negation)."""
    compiled = []
    for words, value, negations in table:
        core = _SEPARATOR.join(re.escape(w) for w in words.split())
        guard = r"(?<![A-Za-z])" + "".join(f"(?<!{re.escape(n)})" for n in negations)
        compiled.append((re.compile(rf"[<\[]\s*{core}\s*[>\]]", re.IGNORECASE),
                         re.compile(rf"{guard}{core}(?![A-Za-z])", re.IGNORECASE), value))
    return compiled


_FACT_FORMS = _forms([("facts present", True, ()), ("no facts", False, ()), ("有事实", True, ("没",)),
                      ("无事实", False, ()), ("没有事实", False, ())])
_HALLUCINATION_FORMS = _forms([("no hallucination", "ok", ()), ("contradictory", "contradictory", ("not ",)),
                               ("unverifiable", "unverifiable", ("not ",)), ("无幻觉", "ok", ()),
                               ("矛盾", "contradictory", ("不", "无", "没有")), ("无法验证", "unverifiable", ())])


def answer_text(reply: str) -> str | None:
    """The part of a judge reply that holds the answer: without ``<think>...</think>`` blocks; None for a reply
    cut while thinking (an unclosed ``<think>``)."""
    text = _THINK.sub(" ", reply)
    return None if re.search(r"<think>", text, re.IGNORECASE) else text


def _values(text: str, forms: list[LabelForm], tagged: bool) -> set[Any]:
    return {value for tag, bare, value in forms if (tag if tagged else bare).search(text)}


def _one_label(reply: str, forms: list[LabelForm]) -> Any:
    """The one label a reply gives, or None. Read in order, the first that names labels decides: the first line
    after the last answer marker ("Final answer:", "**Label:**", ...); the tags (``<...>`` or ``[...]``); the label
    words standing alone. Two different labels at that level (an echoed list of options, an undecided reply) read
    as None."""
    text = answer_text(reply)
    if text is None:
        return None
    marks = list(_ANSWER_MARK.finditer(text))
    levels = []
    if marks:
        after = text[marks[-1].end():].strip(" *_`\t\n")
        levels.append(after.splitlines()[0] if after else "")
    levels.append(text)
    for level in levels:
        for tagged in (True, False):
            found = _values(level, forms, tagged)
            if found:
                return found.pop() if len(found) == 1 else None
    return None


def parse_facts(text: str) -> bool | None:
    """Turn 1: True for Facts Present, False for No Facts (also 有事实 / 无事实), None when unreadable."""
    return _one_label(text, _FACT_FORMS)


_NOTHING_FOUND = re.compile(r"^\W*(?:none|n/?a|nothing(?: relevant)?(?: found)?|no relevant (?:reference )?"
                            r"information(?: (?:was )?found)?(?: in the (?:reference )?document)?|无相关信息|无)\W*$",
                            re.IGNORECASE)
# Separators and echoed placeholders ("<SEP>", "[relevant information]", "<information 1>"): a reply of nothing else
# extracted nothing.
_PLACEHOLDER = re.compile(r"<\s*SEP\s*>|[\[<(]\s*(?:(?:relevant|reference)\s+)?(?:information|points?|info)"
                          r"(?:\s*\d+)?\s*[\]>)]", re.IGNORECASE)


def parse_reference(text: str) -> str | None:
    """Turn 2: the extracted reference information (stripped, <think> blocks removed); :data:`NO_REFERENCE` when
    the reply says there is none: "No Reference Information" anywhere (spaces, case, ``_`` / ``-`` ignored, as the
    official code reads it, or 无参考信息), or a whole reply such as "None" / "No relevant information found.";
    None for an empty reply, a refusal, a bare placeholder ("<SEP>") or one cut while thinking."""
    body = answer_text(text)
    if body is None:
        return None
    squeezed = re.sub(r"[\s_-]+", "", body).lower()
    if "noreferenceinformation" in squeezed or "无参考信息" in squeezed:
        return NO_REFERENCE
    body = body.strip()
    if not re.search(r"\w", _PLACEHOLDER.sub(" ", body)) or _REFUSAL.match(body):
        return None
    return NO_REFERENCE if _NOTHING_FOUND.match(body) else body


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
