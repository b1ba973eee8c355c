"""``hallubench view``: one static HTML page to read the items behind the numbers (docs/viewer.md): per item the
prompt, the model's response, every judge step with its raw reply and reading, long-form claims with their evidence
and verdicts, and other models' answers to the same item side by side."""

from __future__ import annotations

from pathlib import Path

from hallubench.core.outputs import check_output_file, check_replaceable, remove_stale_temporaries, write_text_atomic
from hallubench.reporting.viewer.items import find_sources, gather
from hallubench.reporting.viewer.page import PAGE_HEAD, render

PAGE_NAME = "view.html"


def _ours(path: Path) -> bool:
    """Whether ``path`` is a page `hallubench view` wrote (its first lines carry the mark)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(len(PAGE_HEAD)) == PAGE_HEAD
    except OSError:
        return False


def write_view(inputs: list[Path], out: Path, *, model: str | None = None, task: str | None = None,
               knowledge: Path | None = None, overwrite: bool = False) -> Path:
    """Gather the items of ``inputs`` and write ``out``/view.html; returns the page's path."""
    page = out / PAGE_NAME
    check_output_file(page, "view --out page", ".html")
    sources = find_sources(inputs, model, task)
    check_replaceable(page, "view page", "view", overwrite=overwrite or _ours(page), inputs=[s.path for s in sources])
    data = gather(sources, knowledge)
    title = "hallubench items: " + ", ".join(data["tasks"])
    remove_stale_temporaries(page)
    write_text_atomic(page, render(data, title))
    return page
