"""Classifier scorers (HHEM-2.1-Open, HHEM-1.0-Open, NLI models): P(consistent) for (reference, hypothesis)
pairs, with the sliding-window reference segmentation of Jing et al. ("On A Scale From 1 to 5", section 3.2)."""

from hallu_metrics.scorers.classifier import ClassifierScorer, WindowedPairScorer, score_to_likert
from hallu_metrics.scorers.factory import SPEC_KEYS, make_classifier_scorer
from hallu_metrics.scorers.hhem import (
    FLAN_T5_BASE_ID,
    FLAN_T5_BASE_REVISION,
    HHEM_1_0_REVISION,
    HHEM_2_1_PROMPT,
    HHEM_2_1_REVISION,
    HHEM_MODEL_ID,
    KINDS,
)

__all__ = [
    "FLAN_T5_BASE_ID",
    "FLAN_T5_BASE_REVISION",
    "HHEM_1_0_REVISION",
    "HHEM_2_1_PROMPT",
    "HHEM_2_1_REVISION",
    "HHEM_MODEL_ID",
    "KINDS",
    "SPEC_KEYS",
    "ClassifierScorer",
    "WindowedPairScorer",
    "make_classifier_scorer",
    "score_to_likert",
]
