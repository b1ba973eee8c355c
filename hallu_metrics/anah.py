"""ANAH 2.0 with reference documents (Gu et al., 2024; HalluLens section 4.2).

The model answers a question given a reference document. Each sentence of the answer is annotated in one chained
three-turn conversation, as the ANAH-v2 annotator does: (1) does the sentence state verifiable facts? (2) extract the
reference information relevant to it, or say there is none; (3) label it No Hallucination / Contradictory /
Unverifiable against that information. No facts ends the chain ("nofact"); no reference information makes the
sentence Unverifiable without turn 3. Sentences of one answer are annotated concurrently.

The official scorer pools sentences: hallucination rate = (contradictory + unverifiable) / all sentences, sentences
without facts included. It counts a sentence whose label cannot be read as not hallucinated; here such sentences are
``unparseable``: ``hallucination_rate`` leaves them out (and reports their share), ``hallucination_rate_official``
keeps the official reading. Both sentence-pooled rates are ``extra_summary`` numbers (``hallubench score``); the
per-sample metrics, which lm-eval also reports, are the same rates per response (``response_*``).
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import datasets
from spacy.lang.en.stop_words import STOP_WORDS

from hallu_metrics.contract import Benchmark, Breakdown, Metric
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


def split_answer(text: str, language: str) -> list[str]:
    """The annotated units, split as the official scorer splits: Chinese after 。！？； and at line breaks; English
    at line breaks, after ';' and at sentence ends (segtok, which knows abbreviations such as "Dr." and "U.S.")."""
    if language == "zh":
        return [s.strip() for s in _ZH_SENTENCE.split(text) if s and s.strip()]
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


def _one_label(text: str, forms: Mapping[str, Any]) -> Any:
    """The value of the one label form found in ``text`` (any case, with or without <>; not inside a longer
    word); none or several different labels -> None."""
    alternatives = "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))
    found = {forms[m.group(1).lower()] for m in re.finditer(rf"(?<![A-Za-z])({alternatives})(?![A-Za-z])", text,
                                                             re.IGNORECASE)}
    return found.pop() if len(found) == 1 else None


_FACT_FORMS = {"facts present": True, "no facts": False, "有事实": True, "无事实": False}
_HALLUCINATION_FORMS = {"no hallucination": "ok", "contradictory": "contradictory", "unverifiable": "unverifiable",
                        "无幻觉": "ok", "矛盾": "contradictory", "无法验证": "unverifiable"}


def parse_facts(text: str) -> bool | None:
    return _one_label(text, _FACT_FORMS)


def parse_reference(text: str) -> str | None:
    """The extracted reference information, :data:`NO_REFERENCE` when the reply says there is none (as the
    official code reads it: anywhere in the reply, spaces and case ignored), None for an empty reply."""
    squeezed = re.sub(r"\s+", "", text).lower()
    if "noreferenceinformation" in squeezed or "无参考信息" in squeezed:
        return NO_REFERENCE
    return text.strip() or None


def parse_hallucination(text: str) -> str | None:
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


# ---------------------------------------------------------------- judging

async def annotate_sentence(judge: Judge, item: dict) -> dict[str, Any]:
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
    return {"response": response, "language": doc["language"], "sentences": list(sentences),
            "counts": {label: labels.count(label) for label in SENTENCE_LABELS}, "outcome": response_outcome(labels)}


# ---------------------------------------------------------------- metrics

def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def sample_metrics(record: dict[str, Any], doc: dict | None = None) -> dict[str, float | None]:
    """Per response: the share of its sentences hallucinated (fixed: unparseable sentences left out; official:
    unparseable as not hallucinated), unparseable, and whether the answer has no sentence at all."""
    counts = record["counts"]
    total = sum(counts.values())
    hallucinated = sum(counts[label] for label in HALLUCINATED)
    return {
        "response_hallucination_rate": _ratio(hallucinated, total - counts["unparseable"]),
        "response_hallucination_rate_official": _ratio(hallucinated, total),
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
    official = pooled_rate(list(zip(hallucinated, totals)))
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
    }


def sentence_summary(records: Sequence[dict], docs: Sequence[dict]) -> dict[str, Any]:
    """The official aggregation, sentences pooled over responses: ``hallucination_rate`` (unparseable sentences
    left out), ``hallucination_rate_official`` (unparseable counted as not hallucinated), and under
    ``sentence_level`` their stderr, label counts and the same numbers per language."""
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
               "/ judged sentences (no-fact sentences included); mean over answers", conditional=True),
        Metric("response_hallucination_rate_official", "rate", False, "the same with unparseable sentences counted "
               "as not hallucinated (official reading)", conditional=True),
        Metric("judge_unparseable_rate", "rate", False, "per answer: sentences without a usable label / sentences",
               conditional=True),
        Metric("empty_response_rate", "rate", False, "answers without any sentence / N"),
    ),
    judge_item=judge_item,
    sample_metrics=sample_metrics,
    breakdowns=(Breakdown("language", "category", "language"),),
    headline=("response_hallucination_rate", "response_hallucination_rate_official", "judge_unparseable_rate"),
    generator=None,
    evaluate_module="anah_v2_ref",
    read_official=read_official,
    extra_summary=sentence_summary,
    outcomes=OUTCOMES,
)
