"""No dead code in the shipped packages: every module-level constant and every ``Benchmark`` field is read
somewhere, the task families under lm_eval_tasks/ are YAML and README only (their Python lives in lm_eval_tasks/
itself), and no ``noqa`` comment silences a rule that does not fire."""

import ast
import dataclasses
import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hallu_metrics.contract import Benchmark
from hallubench_tasks import TASKS_DIR

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("hallubench", "hallu_metrics", "generators", "lm_eval_tasks")
READERS = (*PACKAGES, "tests", "benchmarks", "scripts")
CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")


def _python(folders) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


@functools.cache
def _reads(folders: tuple[str, ...]) -> frozenset[str]:
    """Every name loaded and every attribute read in the folders' Python files (imports and ``__all__`` strings do
    not count)."""
    read = set()
    for path in _python(folders):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                read.add(node.id)
            elif isinstance(node, ast.Attribute):
                read.add(node.attr)
    return frozenset(read)


def test_every_module_constant_is_read():
    read = _reads(READERS)
    templates = "\n".join(p.read_text(encoding="utf-8") for p in TASKS_DIR.rglob("*.yaml"))
    unread = []
    for path in _python(PACKAGES):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) else []
            for target in targets:
                if isinstance(target, ast.Name) and CONSTANT.fullmatch(target.id) and target.id != "__all__":
                    if target.id not in read and target.id not in templates:
                        unread.append(f"{path.relative_to(ROOT)}:{node.lineno} {target.id}")
    assert not unread, f"constants nothing reads: {unread}"


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(Benchmark)])
def test_every_benchmark_field_is_read(field):
    """A declared field that no code or test reads is dead weight in every benchmark declaration."""
    assert field in _reads(READERS), f"Benchmark.{field} is declared but never read"


def test_task_families_hold_no_python_modules():
    families = [p for p in TASKS_DIR.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))]
    assert families
    modules = sorted(str(p.relative_to(TASKS_DIR)) for family in families for p in family.rglob("*.py"))
    assert not modules, f"Python modules inside task families (nothing imports them): {modules}"


def test_no_unused_noqa_comment():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    run = subprocess.run([ruff, "check", "--no-cache", "--select", "RUF100", "--extend-select",
                          "E,F,W,I,B,UP", "--output-format", "concise", "."],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    unused = [line for line in run.stdout.splitlines() if "RUF100" in line]
    assert not unused, "\n".join(unused)
