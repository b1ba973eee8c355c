"""Short-answer QA graded three ways, SimpleQA style (Wei et al., 2024; HalluLens section 5.2): one grader call
labels a reply CORRECT (A), INCORRECT (B) or NOT_ATTEMPTED (C) against the gold answer(s). Shared by
``simpleqa_hallu`` and ``popqa_hallu`` (packages ``hallu_metrics.benchmarks.simpleqa`` and
``hallu_metrics.benchmarks.popqa``, which
declare the benchmarks and load their data); HalluLens re-reads the grades as hallucination rates:

- ``hallucination_rate`` = incorrect / attempted (the inverse of SimpleQA's "correct given attempted");
- ``false_refusal_rate`` = not attempted / graded (for PopQA this adds the refusal measure the paper asks for);
- ``correct_rate`` = correct / graded, ``accuracy_given_attempted`` = correct / attempted, and SimpleQA's F-score
  (harmonic mean of the two, an ``extra_summary`` since it is not a mean of per-sample values);
- ``not_attempted_rate_reference`` = (not attempted + unreadable grades) / N, simple-evals' "not attempted".

"Graded" replies are those with a readable grade; an unreadable or failed grade counts only in
``judge_unparseable_rate`` (and in the reference column).

The public grader reads its reply with ``re.search("(A|B|C)")``, which finds capitals inside words ("Correct" gives
C); :func:`parse_grade` accepts only whole-token letters or label words and calls anything else unparseable.

The grader prompt is in ``prompts``, the check, its reader and rule in ``checks``, the chain in ``chain``, the
metrics in ``metrics``; the ``evaluate`` module (both benchmarks) is ``short_answer_qa/``.
"""

from hallu_metrics.short_answer_qa.chain import judge_item
from hallu_metrics.short_answer_qa.checks import GRADE, LETTERS, parse_grade, rule_grade
from hallu_metrics.short_answer_qa.metrics import HEADLINE, METRICS, OUTCOMES, f_score, sample_metrics

__all__ = ["GRADE", "GRADED_BENCHMARK", "HEADLINE", "LETTERS", "METRICS", "OUTCOMES", "f_score", "judge_item",
           "parse_grade", "rule_grade", "sample_metrics"]

# The declaration fields every benchmark graded this way shares (its data, columns and breakdowns are its own).
GRADED_BENCHMARK = {
    "family": "hallulens_extrinsic_proxies",
    "metrics": METRICS,
    "judge_item": judge_item,
    "checks": (GRADE,),
    "sample_metrics": sample_metrics,
    "headline": HEADLINE,
    "generator": None,
    "evaluate_module": "short_answer_qa",
    "extra_summary": f_score,
    "outcomes": OUTCOMES,
}
