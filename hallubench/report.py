"""Human-facing views of a score result: a per-bin table and a per-bin plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _fmt(value: float | None) -> str:
    return "  n/a " if value is None else f"{100 * value:6.2f}"


def table(result: dict[str, Any], metrics: tuple[str, ...]) -> str:
    """Markdown table: one row per bin plus the overall row (rates in percent)."""
    header = "| bin | n | " + " | ".join(metrics) + " |"
    rule = "|---|---:|" + "---:|" * len(metrics)
    rows = [f"| {name} | {r['n']} | " + " | ".join(_fmt(r[m]) for m in metrics) + " |" for name, r in result["per_bin"].items()]
    rows.append(f"| **all** | {result['n']} | " + " | ".join(_fmt(result[m]) for m in metrics) + " |")
    return "\n".join([header, rule, *rows])


def plot(result: dict[str, Any], metrics: tuple[str, ...], path: Path) -> None:
    """Line plot of each rate across the breakdown (difficulty bins: hardest left)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["per_bin"])
    fig, ax = plt.subplots(figsize=(7, 4))
    for metric in metrics:
        values = [result["per_bin"][b][metric] for b in names]
        ax.plot(names, [float("nan") if v is None else 100 * v for v in values], marker="o", label=metric)
    binned = all(name.isdigit() or name == "unbinned" for name in names)
    ax.set_xlabel("difficulty bin (0 = least central page = hardest)" if binned else "breakdown")
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.set_title(f"{result['task']} (judge: {result['judge']})")
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
