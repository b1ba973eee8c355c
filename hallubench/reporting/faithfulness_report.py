"""Figures comparing faithfulness scorers (Jing et al., "On A Scale From 1 to 5"): score against the share of
hallucinated sentences, one line per scorer, in an intrinsic and an extrinsic panel (the paper's Figure 3), and
residual bars per pair type (Figure 2), from several RESULT.json files of the faithfulness tasks."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.benchmarks.faithfulness import RUBRIC_TASK
from hallubench.core.errors import HallubenchError
from hallubench.reporting.report import draw_bars, judge_label, pyplot, save_figure, say_empty, unit

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RESIDUAL_TYPES = ("gold_full", "gold_sentence", "intrinsic", "extrinsic")
RESIDUAL_GROUPS = (*RESIDUAL_TYPES, "all")  # the residual panel's bar groups
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


def _residuals(result: dict[str, Any]) -> list[float]:
    """The mean residual per pair type and over all (``RESIDUAL_GROUPS``); NaN where no pair of it was scored."""
    rows = {row["value"]: row for row in result.get("breakdowns", {}).get("type", [])}
    values = [(rows.get(t) or {}).get("residual") for t in RESIDUAL_TYPES] + [result.get("residual")]
    return [math.nan if v is None else float(v) for v in values]


def _why_empty(loaded: Sequence[dict[str, Any]], what: str) -> str:
    """Why a panel has nothing to draw: no scorer read a score of any pair, or of ``what``."""
    if not any((r.get("counted") or {}).get("score") for r in loaded):
        return "no readable scores: every pair unreadable\n(see judge_unparseable_rate)"
    return f"no readable score of {what}"


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
            curve = result.get("progression", {}).get(kind) or {"shares": [], "scores": []}
            points = [(100 * s, v) for s, v in zip(curve["shares"], curve["scores"]) if v is not None]
            if points:
                ax.plot(*zip(*points), marker="o", label=scorer_label(result))
        ax.set(title=f"{kind} hallucination", xlabel="hallucinated sentences (%)",
               ylabel=f"mean score ({unit(score)})", ylim=score.scale, xticks=[0, 20, 40, 60, 80, 100])
        ax.grid(alpha=0.3)
        if not ax.get_lines():
            say_empty(ax, _why_empty(loaded, f"an {kind} progression pair"))
    if axes[0].get_lines():
        axes[0].legend(fontsize=8)
    bars = axes[2]
    width = 0.8 / len(loaded)
    residuals = [_residuals(result) for result in loaded]
    for i, (result, values) in enumerate(zip(loaded, residuals)):
        draw_bars(bars, [g + i * width for g in range(len(RESIDUAL_GROUPS))], values, residual, scorer_label(result),
                  width)
    bars.set_xticks([g + 0.4 - width / 2 for g in range(len(RESIDUAL_GROUPS))], RESIDUAL_GROUPS, rotation=20)
    bars.set(title="residual |expected - predicted|", ylabel=f"mean absolute residual ({unit(residual)})",
             ylim=residual.scale)
    bars.grid(axis="y", alpha=0.3)
    bars.legend(fontsize=8)
    if all(math.isnan(v) for values in residuals for v in values):
        say_empty(bars, _why_empty(loaded, f"a {'/'.join(RESIDUAL_TYPES)} pair"))
    return fig


if __name__ == "__main__":
    import sys

    if len(sys.argv) < 3:
        sys.exit("usage: python -m hallubench.reporting.faithfulness_report OUT.png RESULT.json [RESULT.json ...]")
    faithfulness_figure(sys.argv[2:], sys.argv[1])
