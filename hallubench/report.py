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
    """Each rate across the breakdown: lines over difficulty bins (hardest left), grouped bars over
    categories (domains, place tiers), each labelled with its sample count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(result["per_bin"])
    binned = all(name.isdigit() or name == "unbinned" for name in names)
    fig, ax = plt.subplots(figsize=(max(8, 1.3 * len(names) + 3), 4.5))
    positions = range(len(names))
    width = 0.8 / len(metrics)
    for k, metric in enumerate(metrics):
        values = [result["per_bin"][b][metric] for b in names]
        percent = [float("nan") if v is None else 100 * v for v in values]
        if binned:
            ax.plot(list(positions), percent, marker="o", label=metric)
        else:
            ax.bar([x + (k - (len(metrics) - 1) / 2) * width for x in positions], percent, width, label=metric)
    separator = "\n" if binned else " "
    labels = [f"{name}{separator}(n={result['per_bin'][name]['n']})" for name in names]
    ax.set_xticks(list(positions), labels, rotation=0 if binned else 30, ha="center" if binned else "right")
    ax.set_xlabel("difficulty bin (0 = least central page = hardest)" if binned else "breakdown")
    ax.set_ylabel("%")
    ax.set_ylim(0, 100)
    ax.set_title(f"{result['task']} (judge: {result['judge']})")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
