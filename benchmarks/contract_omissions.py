"""How many omissions of a benchmark's pieces the contract tests catch (docs/design.md, "Adding a benchmark").

For one benchmark, each piece is removed in turn from a copy of the repository (the checkout itself is never
touched), and the contract tests run on the copy (`tests/test_contract.py`, `tests/test_metric_paths.py`,
`tests/test_prompt_hash.py`, `tests/test_layers.py`, the benchmark's generator tests, selected by the benchmark's
name where they are parametrised). An omission is caught when a test fails; the unedited copy runs first and must
pass (else every omission would look caught). Prints a markdown table.

    .venv/bin/python benchmarks/contract_omissions.py            # PreciseWikiQA, about 15 min on 2 cores
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPIED = ("hallubench", "hallu_metrics", "generators", "lm_eval_tasks", "tests", "docs", "README.md", "pyproject.toml")
TESTS = ("tests/test_contract.py", "tests/test_metric_paths.py", "tests/test_prompt_hash.py", "tests/test_layers.py",
         "tests/test_precisewikiqa_generator.py", "tests/test_reply_corpora.py")

Edit = Callable[[Path], None]


def replace(relative: str, old: str, new: str = "", count: int = 1) -> Edit:
    """An edit replacing ``old`` in one file of the copy (the omission must apply: ``old`` is there)."""

    def edit(copy: Path) -> None:
        path = copy / relative
        text = path.read_text(encoding="utf-8")
        if old not in text:
            raise SystemExit(f"omission no longer applies: {old!r} not in {relative}")
        path.write_text(text.replace(old, new, count), encoding="utf-8")

    return edit


def remove(relative: str) -> Edit:
    def edit(copy: Path) -> None:
        target = copy / relative
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return edit


def regex(relative: str, pattern: str, new: str = "") -> Edit:
    def edit(copy: Path) -> None:
        path = copy / relative
        text, n = re.subn(pattern, new, path.read_text(encoding="utf-8"), count=1, flags=re.S | re.M)
        if not n:
            raise SystemExit(f"omission no longer applies: /{pattern}/ not in {relative}")
        path.write_text(text, encoding="utf-8")

    return edit


OMISSIONS: dict[str, Edit] = {
    "task YAML missing": remove("lm_eval_tasks/hallulens/precisewikiqa.yaml"),
    "YAML does not include the judged template": replace("lm_eval_tasks/hallulens/precisewikiqa.yaml",
                                                         "include: ../_judged_template.yaml\n"),
    "YAML has no metadata.version": replace("lm_eval_tasks/hallulens/precisewikiqa.yaml",
                                            "metadata:\n  version: 3.0\n"),
    "registry line missing": replace("hallu_metrics/registry.py", "        precisewikiqa.BENCHMARK,\n"),
    "evaluate module missing": remove("hallu_metrics/precisewikiqa/hallulens_precisewikiqa"),
    "generator not registered": regex("generators/cli.py", r'^    "precisewikiqa": "[^"]*",\n'),
    "generator rows lack a column": replace("generators/precisewikiqa/pipeline.py", '"difficulty"',
                                            '"difficulty_bin"'),
    "checks not declared": regex("hallu_metrics/precisewikiqa/__init__.py", r"^    checks=\([^)]*\),\n"),
    "a metric not declared": regex("hallu_metrics/precisewikiqa/__init__.py", r'^\s*Metric\(\s*"correct_rate".*?\),\n'),
    "breakdown key not a column": replace("hallu_metrics/precisewikiqa/__init__.py", 'Breakdown("difficulty"',
                                          'Breakdown("difficulty_level"'),
    "family README section missing": regex("lm_eval_tasks/hallulens/README.md", r"^\* `precisewikiqa`.*?(?=^\* `)"),
    "family README changelog missing": regex("lm_eval_tasks/hallulens/README.md", r"^### Changelog.*?(?=^### )"),
    "README row missing": regex("README.md", r"^\| HalluLens PreciseWikiQA.*?\n"),
    "docs page missing": remove("docs/precisewikiqa.md"),
    "metric-paths case missing": regex("tests/test_metric_paths.py", r'^    "precisewikiqa": precisewikiqa_case,\n'),
    "reply corpus missing": remove("tests/reply_corpora/label_correctness.yaml"),
}


def run_tests(copy: Path) -> tuple[bool, str]:
    """(caught, first failing test) for the contract tests on ``copy``."""
    env = {**os.environ, "PYTHONPATH": str(copy), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    selected = "precisewikiqa or every or correctness or layer or group or version or corpus"
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", selected, *TESTS]
    proc = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=1800)
    failed = re.search(r"^(FAILED|ERROR) (\S+)", proc.stdout, re.M)
    return proc.returncode != 0, failed.group(2) if failed else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run these omissions only (names as in the table)")
    args = parser.parse_args()
    rows = ["| omission | caught | by |", "|---|---|---|"]
    baseline: list[tuple[str, Edit | None]] = [("none (baseline)", None)]  # the unedited copy must pass
    for name, edit in [*baseline, *OMISSIONS.items()]:
        if args.only and edit is not None and name not in args.only:
            continue
        with tempfile.TemporaryDirectory(dir=ROOT.parent) as tmp:  # beside the checkout: tests find ../shared/data
            copy = Path(tmp)
            for item in COPIED:
                source = ROOT / item
                (shutil.copytree if source.is_dir() else shutil.copy2)(source, copy / item)
            for import_name, folder in (("hallubench_generators", "generators"), ("hallubench_tasks", "lm_eval_tasks")):
                (copy / import_name).symlink_to(copy / folder)  # the copy's folders under their installed names
            if edit is not None:
                edit(copy)
            start = time.perf_counter()
            caught, by = run_tests(copy)
        rows.append(f"| {name} | {'yes' if caught else '**no**'} | `{by}` ({time.perf_counter() - start:.0f} s) |")
        print(rows[-1], flush=True)
        if edit is None and caught:
            print(f"the unedited copy already fails ({by}): a 'caught' omission would mean nothing", file=sys.stderr)
            return 1
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
