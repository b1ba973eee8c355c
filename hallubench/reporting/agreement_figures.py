"""The figures of ``hallubench agreement`` for the three kinds of judge verdict (issue 25):

- categorical (a label: ``true``/``false``, ``"CORRECT"``, ...): agreement and Cohen's kappa, per-label precision and
  recall, the confusion matrix (scikit-learn);
- numeric (a 1-5 rubric score, a classifier's P(consistent) against 1.0/0.0 human consistency): Pearson and Spearman
  correlation (scipy.stats) and mean absolute error (scikit-learn);
- claims (a list of claims per item, as claim extraction and atomic facts answer): the number of claims per item
  compared as numbers, and "no claim" vs "some claim" compared as a label. The claims' wording is not compared.

Every figure is over the items the judge answered readably, with a seeded percentile bootstrap 95% interval over
items; the share of unreadable or failed verdicts is reported apart (it counts in no other figure). Kappa is undefined
on a resample holding one label only; such resamples are left out of its interval and counted
(``kappa_resamples_dropped``). A judge that gives one label only, or never gives a label the labels use, is named as
degenerate (``degenerate``): its agreement and kappa cannot show it finding that label.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from hallubench.core.errors import HallubenchError
from hallubench.core.seeding import seeded_rng

BOOTSTRAP_RESAMPLES = 1000
KINDS = ("categorical", "numeric", "claims")


def bootstrap_draws(n: int, seed: int, purpose: str) -> np.ndarray:
    """``BOOTSTRAP_RESAMPLES`` resamples of ``n`` item indices (one row each), drawn with replacement from a seeded
    stream."""
    rng = seeded_rng(seed, purpose)
    return np.array([[rng.randrange(n) for _ in range(n)] for _ in range(BOOTSTRAP_RESAMPLES)], dtype=np.int64)


def percentile_interval(statistics: Iterable[float]) -> list[float] | None:
    """The 2.5th and 97.5th percentiles of a statistic over bootstrap resamples, leaving out those where it is
    undefined (NaN); None when it is undefined in all."""
    values = np.sort(np.asarray(list(statistics), dtype=float))
    values = values[~np.isnan(values)]
    if not len(values):
        return None
    return [float(values[int(0.025 * (len(values) - 1))]), float(values[int(0.975 * (len(values) - 1))])]


def _kappas(truth: np.ndarray, verdicts: np.ndarray, labels: int, draws: np.ndarray) -> np.ndarray:
    """Cohen's kappa, (p_o - p_e) / (1 - p_e), of every resample at once from its confusion counts (NaN where only
    one label occurs, p_e = 1); the same figure as scikit-learn's ``cohen_kappa_score``, vectorised over resamples
    because one call per resample is too slow for a thousand of them."""
    rows, n = draws.shape
    cells = truth[draws] * labels + verdicts[draws] + (np.arange(rows) * labels * labels)[:, None]
    confusion = np.bincount(cells.ravel(), minlength=rows * labels * labels).reshape(rows, labels, labels) / n
    observed = np.trace(confusion, axis1=1, axis2=2)
    expected = (confusion.sum(axis=2) * confusion.sum(axis=1)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected < 1 - 1e-12, (observed - expected) / (1 - expected), np.nan)


def _pearsons(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair (NaN where a row is constant)."""
    a, b = a - a.mean(axis=1, keepdims=True), b - b.mean(axis=1, keepdims=True)
    scale = np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 1e-12, (a * b).sum(axis=1) / scale, np.nan)


def _paired(human: Sequence[Any], judged: Sequence[Any | None]) -> tuple[list[tuple[Any, Any]], dict[str, Any]]:
    if len(human) != len(judged) or not human:
        raise HallubenchError("agreement needs one judged verdict per label, and at least one label")
    pairs = [(h, j) for h, j in zip(human, judged) if j is not None]
    return pairs, {"n": len(human), "readable": len(pairs), "unreadable_share": (len(human) - len(pairs)) / len(human)}


def agreement_figures(human: Sequence[str], judged: Sequence[str | None], seed: int = 0) -> dict[str, Any]:
    """Categorical figures for paired labels (``judged`` None = no readable verdict)."""
    from sklearn.metrics import accuracy_score, cohen_kappa_score, confusion_matrix, precision_recall_fscore_support

    pairs, result = _paired(human, judged)
    if not pairs:
        return {**result, "accuracy": None, "kappa": None, "labels": [], "confusion": [], "per_label": {},
                "interval95": {"accuracy": None, "kappa": None}, "kappa_resamples_dropped": None, "degenerate": None}
    truth, verdicts = [h for h, _ in pairs], [j for _, j in pairs]
    labels = sorted(set(truth) | set(verdicts))
    with warnings.catch_warnings():  # one label only: scikit-learn warns, the figures are still right
        warnings.simplefilter("ignore", UserWarning)
        precision, recall, _, support = precision_recall_fscore_support(truth, verdicts, labels=labels,
                                                                        zero_division=0)
        confusion = confusion_matrix(truth, verdicts, labels=labels).tolist()  # rows: human, columns: judge

    draws = bootstrap_draws(len(pairs), seed, "agreement bootstrap")
    codes = {label: i for i, label in enumerate(labels)}
    truth_codes, verdict_codes = np.array([codes[t] for t in truth]), np.array([codes[v] for v in verdicts])
    kappas = _kappas(truth_codes, verdict_codes, len(labels), draws)
    return {
        **result,
        "accuracy": float(accuracy_score(truth, verdicts)),
        "kappa": float(cohen_kappa_score(truth, verdicts, labels=labels)) if len(labels) > 1 else None,
        "labels": labels,
        "confusion": confusion,
        "per_label": {label: {"precision": float(p), "recall": float(r), "support": int(s)}
                      for label, p, r, s in zip(labels, precision, recall, support)},
        "interval95": {
            "accuracy": percentile_interval((truth_codes == verdict_codes)[draws].mean(axis=1)),
            "kappa": percentile_interval(kappas),
        },
        "kappa_resamples_dropped": int(np.isnan(kappas).sum()),
        "degenerate": degenerate(truth, verdicts),
    }


def degenerate(truth: Sequence[str], verdicts: Sequence[str]) -> dict[str, Any] | None:
    """How a judge's readable verdicts fall short of the labels' range, None when they do not: the labels it gives
    (one only is degenerate whatever the labels are) and the labels the human labels use that it never gives."""
    given, never = sorted(set(verdicts)), sorted(set(truth) - set(verdicts))
    if len(given) > 1 and not never:
        return None
    return {"judge_labels": given, "never_given": {label: truth.count(label) for label in never}}


def _correlation(method: Callable, a: Sequence[float], b: Sequence[float]) -> float | None:
    """A scipy correlation coefficient, None where undefined (fewer than 2 items, or either side constant)."""
    if len(a) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(method(a, b)[0])
    return None if math.isnan(value) else value


def numeric_figures(human: Sequence[float], judged: Sequence[float | None], seed: int = 0) -> dict[str, Any]:
    """Numeric figures for paired scores: Pearson r, Spearman rho, mean absolute error (judge - human)."""
    from scipy.stats import pearsonr, rankdata, spearmanr
    from sklearn.metrics import mean_absolute_error

    pairs, result = _paired(human, judged)
    truth, scores = [float(h) for h, _ in pairs], [float(j) for _, j in pairs]
    result.update(pearson=_correlation(pearsonr, truth, scores), spearman=_correlation(spearmanr, truth, scores),
                  mae=float(mean_absolute_error(truth, scores)) if pairs else None,
                  human_mean=sum(truth) / len(truth) if pairs else None,
                  judge_mean=sum(scores) / len(scores) if pairs else None)
    if not pairs:
        return {**result, "interval95": {"pearson": None, "spearman": None, "mae": None}}
    draws = bootstrap_draws(len(pairs), seed, "agreement bootstrap")
    a, b = np.array(truth)[draws], np.array(scores)[draws]  # resamples, vectorised (one scipy call each is slow)
    result["interval95"] = {
        "pearson": percentile_interval(_pearsons(a, b)),
        "spearman": percentile_interval(_pearsons(rankdata(a, axis=1), rankdata(b, axis=1))),
        "mae": percentile_interval(np.abs(a - b).mean(axis=1)),
    }
    return result


def claims_figures(human: Sequence[Sequence[str]], judged: Sequence[Sequence[str] | None], seed: int = 0
                   ) -> dict[str, Any]:
    """Claims figures: the claim counts per item as numeric figures, and "none" / "some" claims as categorical ones.
    Two lists of the same length count as agreeing even when their claims differ: the wording is not compared."""
    counts = numeric_figures([len(h) for h in human], [None if j is None else len(j) for j in judged], seed)
    presence = agreement_figures(["some" if h else "none" for h in human],
                                 [None if j is None else ("some" if j else "none") for j in judged], seed)
    return {**{k: counts[k] for k in ("n", "readable", "unreadable_share")}, "counts": counts, "presence": presence}


def figures_for(kind: str, human: Sequence[Any], judged: Sequence[Any | None], seed: int = 0) -> dict[str, Any]:
    """The figures of ``kind`` (categorical labels are compared as their JSON text, so ``true`` != ``"true"``)."""
    import json

    if kind == "numeric":
        return numeric_figures(human, judged, seed)
    if kind == "claims":
        return claims_figures(human, judged, seed)
    return agreement_figures([json.dumps(h) for h in human], [None if j is None else json.dumps(j) for j in judged],
                             seed)


def valid_label(kind: str, label: Any) -> bool:
    """Whether ``label`` (a human label, or a judge's verdict label) is one of ``kind``."""
    if kind == "claims":
        return isinstance(label, list) and all(isinstance(c, str) for c in label)
    if kind == "numeric":
        return isinstance(label, (int, float)) and not isinstance(label, bool) and math.isfinite(label)
    return isinstance(label, (str, bool, int))


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _ci(interval: Sequence[float] | None, show: Callable[[float | None], str]) -> str:
    return f" [{show(interval[0])}, {show(interval[1])}]" if interval else ""


def degenerate_line(kind: str, figures: dict[str, Any]) -> str | None:
    """The line that names a degenerate judge (categorical verdicts, or claims' none/some), None for another."""
    if kind == "numeric":
        return None
    labelled = figures["presence"] if kind == "claims" else figures
    found = labelled["degenerate"]
    if found is None:
        return None
    parts = []
    if len(found["judge_labels"]) == 1:
        parts.append(f"it gave one label only ({found['judge_labels'][0]}), so its kappa is 0 (or undefined) by "
                     "construction and its agreement is the share of items carrying that label")
    if found["never_given"]:
        never = ", ".join(f"{label} ({count} of {labelled['readable']} items)"
                          for label, count in found["never_given"].items())
        parts.append(f"it never answered {never}, so it cannot find those items")
    return f"Degenerate judge on these items: {'; '.join(parts)}."


def _dropped(figures: dict[str, Any]) -> str:
    dropped = figures["kappa_resamples_dropped"]
    return (f" Kappa is undefined (one label only) in {dropped} of {BOOTSTRAP_RESAMPLES} resamples, left out of its "
            "interval." if dropped else "")


def headline(kind: str, figures: dict[str, Any]) -> str:
    """One line: how many items, how many readable, and the kind's main figures with their 95% intervals."""
    start = (f"{figures['n']} items, {figures['readable']} with a readable verdict (unreadable "
             f"{_share(figures['unreadable_share'])}).")
    if kind == "numeric":
        ci = figures["interval95"]
        return (f"{start} Pearson r {_number(figures['pearson'])}{_ci(ci['pearson'], _number)}, Spearman rho "
                f"{_number(figures['spearman'])}{_ci(ci['spearman'], _number)}, mean absolute error "
                f"{_number(figures['mae'])}{_ci(ci['mae'], _number)} (95% bootstrap intervals).")
    if kind == "claims":
        counts, presence = figures["counts"], figures["presence"]
        ci, pci = counts["interval95"], presence["interval95"]
        return (f"{start} Claims per item: labels {_number(counts['human_mean'])}, judge "
                f"{_number(counts['judge_mean'])}; Pearson r of the counts {_number(counts['pearson'])}"
                f"{_ci(ci['pearson'], _number)}, mean absolute error {_number(counts['mae'])}{_ci(ci['mae'], _number)}"
                f"; no claim vs some claim: agreement {_share(presence['accuracy'])}{_ci(pci['accuracy'], _share)}, "
                f"kappa {_number(presence['kappa'])}{_ci(pci['kappa'], _number)} (95% bootstrap intervals)."
                + _dropped(presence))
    ci = figures["interval95"]
    return (f"{start} Agreement {_share(figures['accuracy'])}{_ci(ci['accuracy'], _share)}, Cohen's kappa "
            f"{_number(figures['kappa'])}{_ci(ci['kappa'], _number)} (95% bootstrap intervals)." + _dropped(figures))


def label_tables(figures: dict[str, Any]) -> list[str]:
    """Markdown lines of a categorical figure set: per-label precision / recall, then the confusion matrix."""
    if not figures["labels"]:
        return []
    lines = ["| label | precision | recall | count in the labels |", "|---|---:|---:|---:|"]
    lines += [f"| {label} | {_share(v['precision'])} | {_share(v['recall'])} | {v['support']} |"
              for label, v in figures["per_label"].items()]
    lines += ["", "Confusion (rows: label, columns: judge):", "",
              "| label \\ judge | " + " | ".join(figures["labels"]) + " |", "|---|" + "---:|" * len(figures["labels"])]
    lines += [f"| {label} | " + " | ".join(map(str, row)) + " |"
              for label, row in zip(figures["labels"], figures["confusion"])]
    return lines


def kind_tables(kind: str, figures: dict[str, Any]) -> list[str]:
    """The tables shown under a headline: label tables for categorical verdicts and for claims' none/some."""
    if kind == "categorical":
        return label_tables(figures)
    if kind == "claims":
        return label_tables(figures["presence"])
    return []
