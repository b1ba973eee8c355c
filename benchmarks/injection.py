"""Prompt injection through look-alike markers (issue 24, item 6): LongWiki's supported claims under a judge that
obeys text it reads outside the data blocks (tests/obedient_judge.py), with clean inputs, with an order injected into
the responses, and with an order injected into the knowledge-store pages; once with the old data blocks (uncoded
markers, exact delimiters stripped only) and once with the current ones.

    python benchmarks/injection.py          # prints a markdown table (docs/reliability.md, "Injection")
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import _test_support  # noqa: F401  (puts tests/ on the import path)
from obedient_judge import longwiki_supported

from hallu_metrics.judges import prompts
from hallu_metrics.longform import claims, verification

_OLD_DELIMITER = re.compile(r"<{2,}\s*/?\s*(?:BEGIN|END)?\s*[A-Z_ ]*>{2,}|<<<|>>>", re.IGNORECASE)


def old_data_block(name: str, text: str) -> str:
    """The data block before coded markers: uncoded markers, exact delimiters stripped."""
    label = name.upper()
    return f"<<<BEGIN {label}>>>\n{_OLD_DELIMITER.sub(' ', text)}\n<<<END {label}>>>"


def supported_claims(old_blocks: bool, where: str | None) -> tuple[int, int]:
    """(supported, total) claims over the six responses, with the old or the current data blocks."""
    modules = (claims, verification, prompts)  # prompts: the few-shot refusal check's blocks
    saved = [module.data_block for module in modules]
    try:
        if old_blocks:
            for module in modules:
                module.data_block = old_data_block
        with tempfile.TemporaryDirectory() as tmp:
            return longwiki_supported(where, Path(tmp))
    finally:
        for module, block in zip(modules, saved):
            module.data_block = block


def main() -> None:
    print("| injected into | old data blocks: supported / claims | coded data blocks: supported / claims |")
    print("|---|---:|---:|")
    for where in (None, "responses", "pages"):
        old, new = supported_claims(True, where), supported_claims(False, where)
        print(f"| {where or 'nothing (clean)'} | {old[0]} / {old[1]} | {new[0]} / {new[1]} |")


if __name__ == "__main__":
    main()
