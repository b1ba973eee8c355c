"""Figures comparing faithfulness scorers (Jing et al., "On A Scale From 1 to 5"): score against the share of
hallucinated sentences, one line per scorer, in an intrinsic and an extrinsic panel (the paper's Figure 3), and
residual bars per pair type (Figure 2), from several RESULT.json files of the faithfulness tasks."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.faithfulness import RUBRIC_TASK
from hallubench.errors import HallubenchError
from hallubench.report import judge_label, pyplot, save_figure, unit

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RESIDUAL_TYPES = ("gold_full", "gold_sentence", "intrinsic", "extrinsic")
PROGRESSION_KINDS = ("intrinsic", "extrinsic")


def scorer_label(result: dict[str, Any]) -> str:
    """The scorer a result is about: ``--model`` when given, else the judge's short form (HHEM, baseline), else
    the task."""
    if result.get("model"):
        return str(result["model"])
    judges = result.get("judges") or {}
    task = str(result.get("task", "?"))
    return f"{task} ({judge_label(judges)})" if judges.get("judge") else task


def _load(result: dict[str, Any] | str | Path) -> dict[str, Any]:
    if isinstance(result, dict):
        return result
    try:
        return json.loads(Path(result).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise HallubenchError(f"{result}: not a readable RESULT.json ({type(exc).__name__})") from exc


def _residuals(result: dict[str, Any]) -> dict[str, float | None]:
    rows = {row["value"]: row for row in result.get("breakdowns", {}).get("type", [])}
    by_type = {t: rows[t].get("residual") if t in rows else None for t in RESIDUAL_TYPES}
    return {**by_type, "all": result.get("residual")}


def faithfulness_figure(results: Sequence[dict[str, Any] | str | Path], path: str | Path) -> None:
    """Draw the progression panels and the residual bars of ``results`` (dicts or RESULT.json paths) to ``path``."""
    save_figure(build_figure([_load(r) for r in results]), Path(path), "faithfulness-report")


def build_figure(loaded: Sequence[dict[str, Any]]) -> Figure:
    """The progression panels (mean score on the score's scale) and the residual bars (on the residual's scale)."""
    if not loaded:
        raise HallubenchError("faithfulness_figure needs at least one result")
    missing = [scorer_label(r) for r in loaded if "residual" not in r]
    if missing:
        raise HallubenchError(f"not faithfulness results (no residual): {', '.join(missing)}")
    score, residual = RUBRIC_TASK.metric("score"), RUBRIC_TASK.metric("residual")
    fig, axes = pyplot().subplots(1, 3, figsize=(16, 4.5), layout="constrained")
    for ax, kind in zip(axes[:2], PROGRESSION_KINDS):
        for result in loaded:
            curve = result.get("progression", {}).get(kind)
            if curve:
                points = [(100 * s, v) for s, v in zip(curve["shares"], curve["scores"]) if v is not None]
                ax.plot(*zip(*points), marker="o", label=scorer_label(result))
        ax.set(title=f"{kind} hallucination", xlabel="hallucinated sentences (%)",
               ylabel=f"mean score ({unit(score)})", ylim=score.scale, xticks=[0, 20, 40, 60, 80, 100])
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    bars = axes[2]
    groups = (*RESIDUAL_TYPES, "all")
    width = 0.8 / len(loaded)
    for i, result in enumerate(loaded):
        residuals = _residuals(result)
        xs = [g + i * width for g in range(len(groups))]
        bars.bar(xs, [residuals[g] or 0.0 for g in groups], width, label=scorer_label(result))
        for x, group in zip(xs, groups):
            if residuals[group] is None:  # nothing scored: no bar, not a perfect one
                bars.text(x, 0.05, "n/a", rotation=90, ha="center", va="bottom", fontsize=7)
    bars.set_xticks([g + 0.4 - width / 2 for g in range(len(groups))], groups, rotation=20)
    bars.set(title="residual |expected - predicted|", ylabel=f"mean absolute residual ({unit(residual)})",
             ylim=residual.scale)
    bars.grid(axis="y", alpha=0.3)
    bars.legend(fontsize=8)
    return fig


if __name__ == "__main__":
    import sys

    if len(sys.argv) < 3:
        sys.exit("usage: python -m hallubench.faithfulness_report OUT.png RESULT.json [RESULT.json ...]")
    faithfulness_figure(sys.argv[2:], sys.argv[1])
