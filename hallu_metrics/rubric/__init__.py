"""The 1-5 faithfulness rubric layer (Jing et al.): the rubric check, its prompts and its rule stand-in (the
lexical baseline), shared by the faithfulness tasks and HHEM summarization's LLM-judge path."""

from hallu_metrics.rubric.baseline import BaselineScores, baseline_rule, baseline_scores
from hallu_metrics.rubric.prompts import DEFAULT_RUBRIC, load_rubric, rubric_messages, rubric_prompt
from hallu_metrics.rubric.rubric import RUBRIC, faithfulness_check, parse_rubric_score, rubric_check

__all__ = ["DEFAULT_RUBRIC", "RUBRIC", "BaselineScores", "baseline_rule", "baseline_scores", "faithfulness_check",
           "load_rubric", "parse_rubric_score", "rubric_check", "rubric_messages", "rubric_prompt"]
