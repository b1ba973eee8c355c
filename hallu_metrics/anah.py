"""ANAH 2.0 with reference documents (Gu et al., 2024; HalluLens section 4.2).

The model answers a question given a reference document. Each sentence of the answer is annotated in one chained
three-turn conversation, as the ANAH-v2 annotator does: (1) does the sentence state verifiable facts? (2) extract the
reference information relevant to it, or say there is none; (3) label it No Hallucination / Contradictory /
Unverifiable against that information. No facts ends the chain ("nofact"); no reference information makes the
sentence Unverifiable without turn 3. Sentences of one answer are annotated concurrently.

The official scorer pools sentences: hallucination rate = (contradictory + unverifiable) / all sentences, sentences
without facts included. It counts a sentence whose label cannot be read as not hallucinated; here such sentences are
``unparseable``: ``hallucination_rate`` leaves them out (and reports their share). ``hallucination_rate_official``
replays the official eval.py on the same judge's replies (its flow, its reading of each reply, its aggregation;
:func:`official_replay`). Both sentence-pooled rates are ``extra_summary`` numbers (``hallubench score``); the
per-sample metrics, which lm-eval also reports, are the same rates per response (``response_*``).
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import datasets

from hallu_metrics.contract import Benchmark, Breakdown, Metric, unreadable_share
from hallu_metrics.judges import structured
from hallu_metrics.judges.base import Check, Judge
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.prompts import DATA_NOTICE, data_block
from hallu_metrics.longform.sentences import split_sentences
from hallubench.errors import HallubenchError

OFFICIAL_URL = "https://media.githubusercontent.com/media/open-compass/ANAH/main/eval/anah_v2/question_document.jsonl"
OFFICIAL_FILE = "question_document.jsonl"
LANGUAGES = ("en", "zh")
SENTENCE_LABELS = ("ok", "nofact", "contradictory", "unverifiable", "unparseable")
HALLUCINATED = ("contradictory", "unverifiable")
NO_REFERENCE = "<No Reference Information>"
OUTCOMES = ("faithful", "hallucinated", "unjudged", "empty")

# The model under test: the question answered from the reference document (ANAH-v2 "w/ reference"), in the
# question's language; this project's wording.
ANSWER_PROMPTS = {
    "en": "Answer the question using the reference document below.\n\nReference document:\n{document}\n\n"
          "Question: {question}",
    "zh": "请根据下面的参考文档回答问题。\n\n参考文档：\n{document}\n\n问题：{question}",
}


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


# ---------------------------------------------------------------- the three checks

_SYSTEM = ("You annotate hallucinations in an answer to a question, one answer sentence at a time, against a "
           f"reference document, in three steps.\n{DATA_NOTICE}")


def _step1(item: dict) -> str:
    return (
        "Step 1. Does the answer sentence state verifiable facts: specific, objective information such as figures, "
        "dates, events, names or scientific statements that reliable sources could confirm? Opinions, subjective "
        "judgements, greetings and remarks about the answer itself are not facts.\n"
        f"{data_block('question', item['question'])}\n{data_block('answer sentence', item['sentence'])}\n"
        "Reply <Facts Present> or <No Facts> only."
    )


def _step2(item: dict) -> str:
    return (
        "Step 2. From the reference document, extract every piece of information relevant to the question and to "
        "the answer sentence, whether it agrees with the sentence, partly agrees or conflicts with it. List the "
        "pieces in document order, separated by <SEP>. If nothing in the document is relevant, reply "
        f"{NO_REFERENCE} only.\n"
        f"{data_block('question', item['question'])}\n{data_block('answer sentence', item['sentence'])}\n"
        f"{data_block('reference document', item['document'])}"
    )


def _step3(item: dict) -> str:
    return (
        "Step 3. Compare the answer sentence with the reference points you extracted.\n"
        "- <No Hallucination>: the sentence agrees with the reference points and adds nothing that conflicts.\n"
        "- <Contradictory>: the sentence clearly conflicts with the reference points.\n"
        "- <Unverifiable>: the sentence states something the reference points neither support nor contradict.\n"
        f"{data_block('question', item['question'])}\n{data_block('answer sentence', item['sentence'])}\n"
        f"{data_block('reference points', item['reference'])}\n"
        "Reply with one label only."
    )


def _conversation(item: dict, steps: int) -> list[dict[str, str]]:
    """The chained conversation up to turn ``steps``: earlier turns with the judge's own earlier replies."""
    turns = [_step1, _step2, _step3][:steps]
    replies = [item.get("facts_reply", ""), item.get("reference_reply", "")]
    messages = [{"role": "system", "content": _SYSTEM}]
    for i, turn in enumerate(turns):
        messages.append({"role": "user", "content": turn(item)})
        if i < steps - 1:
            messages.append({"role": "assistant", "content": replies[i]})
    return messages


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


def parse_hallucination(text: str) -> str | None:
    """Turn 3: "ok" (No Hallucination), "contradictory" or "unverifiable" (also 无幻觉 / 矛盾 / 无法验证), None
    when unreadable."""
    return _one_label(text, _HALLUCINATION_FORMS)


# ---------------------------------------------------------------- the offline rule stand-in

_CJK = re.compile(r"[\u4e00-\u9fff]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
MIN_COVERAGE = 0.5  # rule: share of a sentence's content units found in the reference points for "ok"
MAX_POINTS = 3  # rule: reference sentences kept as points
# Conversational words that carry no fact ("Sure!", "I hope this helps.", "Thanks for asking."), besides stop words.
_FILLER = frozenset({"sure", "certainly", "hope", "helps", "help", "helpful", "thanks", "thank", "glad", "happy",
                     "course", "okay", "ok", "great", "asking", "sorry", "let", "know", "feel", "free"})


def content_units(text: str, language: str) -> set[str]:
    """Content units: English words that are neither spaCy stop words nor conversational fillers (numbers
    included); Chinese character bigrams and numbers."""
    if language == "zh":
        return {run[i:i + 2] for run in _CJK.findall(text) for i in range(max(len(run) - 1, 1))} | set(
            _NUMBER.findall(text))
    words = re.findall(r"\w+", text.lower())
    from spacy.lang.en.stop_words import STOP_WORDS  # spaCy loads in seconds: only when a rule reads text

    return {w for w in words if w not in STOP_WORDS and w not in _FILLER and (len(w) > 1 or w.isdigit())}


def rule_facts(item: dict) -> bool:
    """A sentence without content units ("Sure!", "I hope this helps.") states no facts."""
    return bool(content_units(item["sentence"], item["language"]))


def rule_reference(item: dict) -> str:
    """Up to 3 document sentences sharing the most content units with the answer sentence (at least 2, or 1 for a
    sentence with fewer than 3 units), in document order; none -> :data:`NO_REFERENCE`."""
    language, units = item["language"], content_units(item["sentence"], item["language"])
    need = 1 if len(units) < 3 else 2
    scored = [(len(units & content_units(s, language)), i, s)
              for i, s in enumerate(split_answer(item["document"], language))]
    best = sorted((x for x in scored if x[0] >= need), key=lambda x: (-x[0], x[1]))[:MAX_POINTS]
    return " <SEP> ".join(s for _, _, s in sorted(best, key=lambda x: x[1])) or NO_REFERENCE


def rule_hallucination(item: dict) -> str:
    """"ok" when every number of the sentence and at least half of its content units occur in the reference points,
    else "unverifiable". A rule cannot tell a contradiction from missing support: it never answers
    "contradictory"."""
    language, sentence, points = item["language"], item["sentence"], item["reference"]
    units = content_units(sentence, language)
    numbers_supported = set(_NUMBER.findall(sentence)) <= set(_NUMBER.findall(points))
    coverage = len(units & content_units(points, language)) / len(units) if units else 1.0
    return "ok" if numbers_supported and coverage >= MIN_COVERAGE else "unverifiable"


HALLUCINATION_TAGS = ("<No Hallucination>", "<Contradictory>", "<Unverifiable>")  # turn 3 answers
FACTS = Check(name="anah_facts", messages=lambda item: _conversation(item, 1), parse=parse_facts,
              reminder="Reply with exactly <Facts Present> or <No Facts>.", rule=rule_facts, max_tokens=16,
              structured=structured.label("answer", ("<Facts Present>", "<No Facts>"), as_text=str))
REFERENCE = Check(name="anah_reference", messages=lambda item: _conversation(item, 2), parse=parse_reference,
                  reminder=f"List the relevant reference information separated by <SEP>, or reply {NO_REFERENCE}.",
                  rule=rule_reference, max_tokens=512, structured=structured.text_field("reference"))
HALLUCINATION = Check(name="anah_hallucination", messages=lambda item: _conversation(item, 3),
                      parse=parse_hallucination, reminder="Reply with exactly one of <No Hallucination>, "
                      "<Contradictory> or <Unverifiable>.", rule=rule_hallucination, max_tokens=16,
                      structured=structured.label("answer", HALLUCINATION_TAGS, as_text=str))


# ---------------------------------------------------------------- the official eval.py, replayed

# What open-compass/ANAH eval/anah_v2/eval.py (process_question, evaluate_output) does with the annotator's replies:
# turn 1: only a reply that is exactly "<No Facts>" (or "<无事实>") ends the chain as nofact, anything else means facts
# present; turn 2: "noreferenceinformation" / "无参考信息" in the reply stripped, lower-cased and without spaces (only
# " ", not other white space) ends it as unverifiable, anything else is the reference; turn 3: the same squeezing,
# then the first of "nohallucination"/"无幻觉" (ok), "contradictory"/"矛盾", "unverifiable"/"无法验证" found, tried in
# that fixed order (not by position in the reply), else None; the score counts every sentence, None included, in
# the total and only contradictory + unverifiable as hallucinated. It reads the first reply of each turn (no
# reminder turn) and keeps asking where this project's readers stop (e.g. after "No Facts." or an unreadable turn 1).
OFFICIAL_LABELS = ("ok", "nofact", "contradictory", "unverifiable", "unreadable")  # unreadable: eval.py's None
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


def _verbatim(text: str) -> str:
    return text


def _tag(rule: Any, tags: Mapping[Any, str]) -> Any:
    return lambda item: tags[rule(item)]


# The same three turns (same names, prompts, schemas and token limits, so the same cached requests) read verbatim:
# the judge's first reply of each turn, never re-asked, for the official replay.
FACTS_REPLY = replace(FACTS, parse=_verbatim, rule=_tag(rule_facts, {True: "<Facts Present>", False: "<No Facts>"}))
REFERENCE_REPLY = replace(REFERENCE, parse=_verbatim)
HALLUCINATION_REPLY = replace(HALLUCINATION, parse=_verbatim, rule=_tag(rule_hallucination, {
    "ok": "<No Hallucination>", "contradictory": "<Contradictory>", "unverifiable": "<Unverifiable>"}))


async def official_replay(judge: Judge, item: dict) -> dict[str, Any]:
    """eval.py's flow and reading on the judge's first reply to each turn of this project's prompts. Requests the
    project's chain already made come from the call cache; the replay asks further turns only where eval.py goes on
    and the project's chain stopped. Returns the official label and the replies read (a failed call: label None and
    the failed verdict)."""
    replies: list[str] = []
    steps = (FACTS_REPLY, REFERENCE_REPLY, HALLUCINATION_REPLY)
    for step, check in enumerate(steps):
        verdict = await judge.ask(check, item)
        if not verdict.ok:
            return {"label": None, "replies": replies, "failed": verdict.to_dict()}
        replies.append(verdict.label)
        try:
            return {"label": official_label(replies), "replies": replies}
        except ValueError:
            pass
        if step == 0:
            item = {**item, "facts_reply": verdict.raw}
        else:  # turn 3 gets the points as the project's chain passes them, so its request is the chain's own
            points = parse_reference(verdict.label)
            item = {**item, "reference_reply": verdict.raw,
                    "reference": points if points not in (None, NO_REFERENCE) else verdict.label.strip()}
    raise AssertionError("unreachable: the official flow ends by turn 3")


# ---------------------------------------------------------------- judging

async def annotate_sentence(judge: Judge, item: dict) -> dict[str, Any]:
    """The project's chain (:func:`annotate_chain`), then the official replay (:func:`official_replay`) under
    ``official``, unless a judge call of the chain failed (the sentence is re-judged on a re-run)."""
    record = await annotate_chain(judge, item)
    failed = any((record[turn] or {}).get("status") == "failed" for turn in ("facts", "reference", "hallucination"))
    record["official"] = {"label": None, "replies": []} if failed else await official_replay(judge, item)
    return record


async def annotate_chain(judge: Judge, item: dict) -> dict[str, Any]:
    """Turns 1-3 for one sentence, each turn carrying the judge's earlier replies; stops at "no facts" or "no
    reference information". An unreadable or failed turn makes the sentence ``unparseable``."""
    record: dict[str, Any] = {"sentence": item["sentence"], "facts": None, "reference": None, "hallucination": None}
    facts = await judge.ask(FACTS, item)
    record["facts"] = facts.to_dict()
    if not facts.ok or facts.label is False:
        return {**record, "label": "nofact" if facts.ok else "unparseable"}
    item = {**item, "facts_reply": facts.raw}
    reference = await judge.ask(REFERENCE, item)
    record["reference"] = reference.to_dict()
    if not reference.ok or reference.label == NO_REFERENCE:
        return {**record, "label": "unverifiable" if reference.ok else "unparseable"}
    item = {**item, "reference_reply": reference.raw, "reference": reference.label}
    verdict = await judge.ask(HALLUCINATION, item)
    record["hallucination"] = verdict.to_dict()
    return {**record, "label": verdict.label if verdict.ok else "unparseable"}


def response_outcome(labels: Sequence[str]) -> str:
    if not labels:
        return "empty"
    if any(label in HALLUCINATED for label in labels):
        return "hallucinated"
    return "unjudged" if "unparseable" in labels else "faithful"


async def judge_item(doc: dict, response: str, judges: JudgeSet) -> dict[str, Any]:
    """Every sentence of the answer annotated concurrently (one chained conversation each)."""
    judge = judges.get("judge")
    base = {"question": doc["question"], "document": doc["document"], "language": doc["language"]}
    sentences = await asyncio.gather(*(annotate_sentence(judge, {**base, "sentence": s})
                                       for s in split_answer(response, doc["language"])))
    labels = [s["label"] for s in sentences]
    official = [s["official"]["label"] or "unreadable" for s in sentences]
    return {"response": response, "language": doc["language"], "sentences": list(sentences),
            "counts": {label: labels.count(label) for label in SENTENCE_LABELS},
            "official_counts": {label: official.count(label) for label in OFFICIAL_LABELS},
            "outcome": response_outcome(labels)}


# ---------------------------------------------------------------- metrics

def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def official_counts(record: dict[str, Any]) -> dict[str, int]:
    """The official replay's label counts of a response; for a record without them (sentence labels given to the
    evaluate module, records judged before the replay existed) eval.py's aggregation of the project's labels, an
    unparseable sentence as its None."""
    if "official_counts" in record:
        return record["official_counts"]
    counts = record["counts"]
    return {**{label: counts.get(label, 0) for label in OFFICIAL_LABELS[:-1]}, "unreadable": counts["unparseable"]}


def _official_hallucinated(counts: Mapping[str, int]) -> tuple[int, int]:
    """(hallucinated, all sentences) as eval.py counts them: unreadable sentences in the total."""
    return sum(counts[label] for label in HALLUCINATED), sum(counts.values())


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per response: the share of its sentences hallucinated (fixed: unparseable sentences left out; official: the
    replay of eval.py, its unreadable sentences counted as not hallucinated), unparseable, and whether the answer has
    no sentence at all."""
    counts = record["counts"]
    total = sum(counts.values())
    hallucinated = sum(counts[label] for label in HALLUCINATED)
    return {
        "response_hallucination_rate": _ratio(hallucinated, total - counts["unparseable"]),
        "response_hallucination_rate_official": _ratio(*_official_hallucinated(official_counts(record))),
        "judge_unparseable_rate": _ratio(counts["unparseable"], total),
        "empty_response_rate": float(total == 0),
    }


def pooled_rate(pairs: Sequence[tuple[int, int]]) -> tuple[float | None, float | None]:
    """sum(k) / sum(n) over responses' (k, n) and its standard error as a ratio estimator with responses as
    clusters (sentences of one answer are not independent); None where undefined."""
    pairs = [(k, n) for k, n in pairs if n]
    total = sum(n for _, n in pairs)
    if not total:
        return None, None
    rate = sum(k for k, _ in pairs) / total
    m = len(pairs)
    if m < 2:
        return rate, None
    variance = m / (m - 1) * sum((k - rate * n) ** 2 for k, n in pairs) / total ** 2
    return rate, math.sqrt(variance)


def _pooled(records: Sequence[dict]) -> dict[str, Any]:
    counts = [r["counts"] for r in records]
    hallucinated = [sum(c[label] for label in HALLUCINATED) for c in counts]
    totals = [sum(c.values()) for c in counts]
    fixed = pooled_rate([(h, t - c["unparseable"]) for h, t, c in zip(hallucinated, totals, counts)])
    official_by_response = [official_counts(r) for r in records]
    official = pooled_rate([_official_hallucinated(c) for c in official_by_response])
    official_summed = Counter()
    for c in official_by_response:
        official_summed.update(c)
    unparseable = pooled_rate([(c["unparseable"], t) for c, t in zip(counts, totals)])
    summed = Counter()
    for c in counts:
        summed.update(c)
    return {
        "hallucination_rate": fixed[0], "hallucination_rate_official": official[0],
        "judge_unparseable_rate": unparseable[0],
        "stderr": {"hallucination_rate": fixed[1], "hallucination_rate_official": official[1],
                   "judge_unparseable_rate": unparseable[1]},
        "sentences": sum(totals), "label_counts": {label: summed[label] for label in SENTENCE_LABELS},
        "official_label_counts": {label: official_summed[label] for label in OFFICIAL_LABELS},
    }


def sentence_summary(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """The official aggregation, sentences pooled over responses: ``hallucination_rate`` (unparseable sentences
    left out), ``hallucination_rate_official`` (the official eval.py replayed), and under ``sentence_level`` their
    stderr, label counts (the project's and the replay's) and the same numbers per language."""
    pooled = _pooled(records)
    languages = sorted({d["language"] for d in docs})
    pooled["by_language"] = {lang: _pooled([r for r, d in zip(records, docs) if d["language"] == lang])
                             for lang in languages}
    return {"hallucination_rate": pooled["hallucination_rate"],
            "hallucination_rate_official": pooled["hallucination_rate_official"], "sentence_level": pooled}


# ---------------------------------------------------------------- data

def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """Docs with the answering prompt in the question's language (``en`` or ``zh``)."""
    docs = []
    for i, row in enumerate(rows):
        language = str(row["language"]).strip().lower()
        if language not in LANGUAGES:
            raise HallubenchError(f"anah_v2_ref: row {i} language {row['language']!r} is not one of {LANGUAGES}")
        docs.append({"id": str(row.get("id") or i), "question": row["question"], "document": row["document"],
                     "language": language,
                     "prompt": ANSWER_PROMPTS[language].format(document=row["document"], question=row["question"])})
    return datasets.Dataset.from_list(docs)


def read_official(location: str | None) -> list[dict[str, Any]]:
    """ANAH-v2's questions with reference documents (``question_document.jsonl``: question, document, language,
    from the authors' GitHub repository, a Git LFS file of 140 MB) downloaded once when ``location`` is None, or
    read from a folder holding that file."""
    from datasets.utils.file_utils import cached_path

    from hallubench.sources.json_records import read_json_records

    if location is None:
        try:
            return read_json_records(cached_path(OFFICIAL_URL))
        except HallubenchError:
            raise
        except Exception as exc:  # offline, HTTP errors, ...
            raise HallubenchError(f"cannot download {OFFICIAL_URL} ({type(exc).__name__}); pass a local copy "
                                  "with --metadata dataset=PATH") from exc
    path = Path(location) / OFFICIAL_FILE
    if not path.is_file():
        raise HallubenchError(f"{location}: no {OFFICIAL_FILE} in this folder")
    return read_json_records(path)


_TEXT = datasets.Value("string")

BENCHMARK = Benchmark(
    name="anah_v2_ref",
    family="hallulens_intrinsic",
    paper="ANAH-v2 (Gu et al., 2024); HalluLens (Bang et al., 2025) section 4.2",
    columns=datasets.Features({"question": _TEXT, "document": _TEXT, "language": _TEXT}),
    doc_columns=("id", "question", "document", "language", "prompt"),
    to_docs=to_docs,
    metrics=(
        Metric("response_hallucination_rate", "rate", False, "per answer: contradictory or unverifiable sentences "
               "/ judged sentences (no-fact sentences included); mean over answers", conditional=True,
               proportion=False),
        Metric("response_hallucination_rate_official", "rate", False, "per answer: the official eval.py replayed on "
               "the judge's replies (its flow and reading of each first reply): contradictory or unverifiable / all "
               "sentences, its unreadable ones included", conditional=True, proportion=False),
        unreadable_share("per answer: sentences", "sentences", conditional=True, proportion=False),
        Metric("empty_response_rate", "rate", False, "answers without any sentence / N"),
    ),
    judge_item=judge_item,
    checks=(FACTS, REFERENCE, HALLUCINATION, FACTS_REPLY, REFERENCE_REPLY, HALLUCINATION_REPLY),
    sample_metrics=sample_metrics,
    breakdowns=(Breakdown("language", "category", "language"),),
    headline=("response_hallucination_rate", "response_hallucination_rate_official", "judge_unparseable_rate"),
    generator=None,
    evaluate_module="anah_v2_ref",
    read_official=read_official,
    extra_summary=sentence_summary,
    outcomes=OUTCOMES,
)
