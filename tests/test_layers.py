"""The import layers, read from the folders (docs/design.md, "Layers"). From the bottom:

- core: ``hallubench/core/`` (errors, specs, backends and cache, provenance, seeding, outputs, official files);
- metrics: ``hallu_metrics/``: its shared layers (``judges/``, ``longform/``, ``scorers/``, ``rubric/``,
  ``short_answer_qa/`` and the top-level modules the benchmarks build on), then ``benchmarks/<name>/`` (each
  importing no other benchmark), then what collects the benchmarks (``registry``, ``labelled_sets``,
  ``evaluate_metrics``);
- tasks: ``lm_eval_tasks/`` and ``generators/`` (never each other) and ``hallubench/inspect_tasks/`` (which reads the
  lm-eval tasks' data loader);
- reporting: ``hallubench/reporting/`` (no argparse) and ``hallubench/scaffold/``;
- CLI: ``hallubench/cli/``, on top.

An upward import, at module level or inside a function (type-checking imports included), fails here; so does any
import cycle between the project's modules."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# folder -> import name (pyproject.toml installs generators/ and lm_eval_tasks/ under unique names)
IMPORT_NAMES = {"hallubench": "hallubench", "hallu_metrics": "hallu_metrics", "generators": "hallubench_generators",
                "lm_eval_tasks": "hallubench_tasks"}
COLLECTORS = ("hallu_metrics.registry", "hallu_metrics.labelled_sets")
# what the Inspect tasks share with the lm-eval tasks
LM_EVAL_TASK_DATA = {"hallubench_tasks", "hallubench_tasks.dataset_loading", "hallubench_tasks.settings"}
SHARED_CHAINS = ("hallu_metrics.short_answer_qa",)  # a shared layer whose chain benchmarks declare as theirs


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layer(module: str) -> str:
    """The layer a module belongs to, from the folder it lives in."""
    if module in ("hallubench", "hallu_metrics") or _under(module, "hallubench.core"):
        return "core"
    if _under(module, "hallubench.inspect_tasks"):
        return "inspect_tasks"
    if _under(module, "hallubench.reporting") or _under(module, "hallubench.scaffold"):
        return "reporting"
    if _under(module, "hallubench.cli"):
        return "cli"
    if any(_under(module, c) for c in COLLECTORS):
        return "collectors"
    if _under(module, "hallu_metrics.benchmarks"):
        return "benchmarks"
    if module.startswith("hallu_metrics."):
        return "shared"
    if module.startswith("hallubench."):
        return "unplaced"
    return module.split(".")[0]


ALLOWED = {
    "core": {"core"},
    "shared": {"core", "shared"},
    "benchmarks": {"core", "shared", "benchmarks"},
    "collectors": {"core", "shared", "benchmarks", "collectors"},
    "hallubench_generators": {"core", "shared", "benchmarks", "collectors", "hallubench_generators"},
    "hallubench_tasks": {"core", "shared", "benchmarks", "collectors", "hallubench_tasks"},
    "inspect_tasks": {"core", "shared", "benchmarks", "collectors", "inspect_tasks"},
    "reporting": {"core", "shared", "benchmarks", "collectors", "hallubench_generators", "hallubench_tasks",
                  "inspect_tasks", "reporting"},
    "cli": {"core", "shared", "benchmarks", "collectors", "hallubench_generators", "hallubench_tasks",
            "inspect_tasks", "reporting", "cli"},
}


@cache
def modules() -> dict[str, Path]:
    found = {}
    for folder, import_name in IMPORT_NAMES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join((import_name, *parts[1:])).removesuffix(".__init__")] = path
    return found


@cache
def imports(module: str) -> frozenset[str]:
    """The project modules ``module`` imports anywhere in its file, each as the most specific module named."""
    known = modules()
    found = set()
    for node in ast.walk(ast.parse(known[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                     for a in node.names]
        else:
            continue
        found.update(n for n in names if n.split(".")[0] in IMPORT_NAMES.values())
    return frozenset(found)


def benchmark_of(module: str) -> str | None:
    return module.split(".")[2] if _under(module, "hallu_metrics.benchmarks") and module.count(".") >= 2 else None


def test_every_module_has_a_layer():
    assert not [m for m in modules() if layer(m) == "unplaced"], "a hallubench module outside core/, reporting/, cli/"


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_upward_import(name):
    upward = sorted(m for m in imports(name) if layer(m) not in ALLOWED[layer(name)]
                    and not (layer(name) == "inspect_tasks" and m in LM_EVAL_TASK_DATA))
    assert not upward, f"{name} ({layer(name)}) imports {upward}"


@pytest.mark.parametrize("name", sorted(m for m in modules() if benchmark_of(m)))
def test_a_benchmark_imports_no_other_benchmark(name):
    others = sorted(m for m in imports(name) if benchmark_of(m) not in (None, benchmark_of(name)))
    assert not others, f"{name} imports another benchmark: {others}"


def test_no_import_cycle():
    """Tarjan's strongly connected components over every import (lazy and type-checking ones included)."""
    graph = {m: sorted(i for i in imports(m) if i in modules() and i != m) for m in modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_test_support_is_not_shipped():
    """Loopback servers stand in for remote APIs in tests and benchmarks only: no runtime package holds one."""
    assert not [p for package in IMPORT_NAMES for p in (ROOT / package).rglob("*loopback*")]


def test_every_package_folder_is_installed_under_its_unique_name():
    """pyproject.toml lists every package (a folder with __init__.py) under its import name, and no installed name
    is a generic one another distribution could also install (`generators`, `lm_eval_tasks`)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {str(p.parent.relative_to(ROOT)) for folder in IMPORT_NAMES for p in (ROOT / folder).rglob("__init__.py")}
    expected = {".".join((IMPORT_NAMES[f.split("/")[0]], *f.split("/")[1:])) for f in folders}
    assert set(config["packages"]) == expected
    assert {name.split(".")[0] for name in config["packages"]} == set(IMPORT_NAMES.values())
    assert config["package-dir"] == {v: k for k, v in IMPORT_NAMES.items() if k != v}


def _benchmarks():
    from hallu_metrics.registry import BENCHMARKS

    return list(BENCHMARKS.values())


@pytest.mark.parametrize("benchmark", _benchmarks(), ids=lambda b: b.name)
def test_each_benchmark_is_one_package_per_layer(benchmark):
    """docs/design.md, "Each benchmark in one place per layer": the chain in ``<package>/chain.py``, the per-sample
    metrics in ``<package>/metrics.py``, the evaluate module inside the same package, every prompt its checks send
    in that package's ``prompts.py`` (or a shared layer's module), and its generator in ``generators/<package>/``.
    A benchmark whose chain is a shared layer's (SimpleQA and PopQA: ``short_answer_qa``) keeps its evaluate module
    in its own package."""
    from hallu_metrics.evaluate_metrics import module_path

    package = benchmark.judge_item.__module__.removesuffix(".chain")
    assert benchmark.judge_item.__module__ == f"{package}.chain"
    assert benchmark_of(package + ".chain") or package in SHARED_CHAINS, package
    assert benchmark.sample_metrics.__module__ == f"{package}.metrics"
    if benchmark.evaluate_module:  # in a benchmark's package: its own, or (a shared chain) the one declaring it
        folder = Path(module_path(benchmark.evaluate_module)).parent
        assert folder.parent == ROOT / "hallu_metrics" / "benchmarks"
        assert not benchmark_of(package + ".chain") or folder == ROOT / package.replace(".", "/")
    shared = ("hallu_metrics.longform.", "hallu_metrics.rubric.", "hallu_metrics.judges.",
              "hallu_metrics.short_answer_qa.")
    for check in benchmark.checks:
        if check.messages is not None:
            home = check.messages.__module__
            assert home == f"{package}.prompts" or home.startswith(shared), (check.name, home)
    if benchmark.generator:
        assert (ROOT / "generators" / benchmark.generator.split(".")[0]).is_dir()


def test_every_old_import_path_names_a_module_of_the_new_layout():
    """hallubench/core/moved.py maps each module the layout moved to where it is now (one release of aliases)."""
    from hallubench.core.moved import MOVED

    assert not sorted(new for new in MOVED.values() if new not in modules())


@pytest.mark.parametrize("old, new", [
    ("hallu_metrics.precisewikiqa.checks", "hallu_metrics.benchmarks.precisewikiqa.checks"),
    ("hallubench.scoring", "hallubench.reporting.scoring"),
    ("hallu_metrics.faithfulness.rubric", "hallu_metrics.rubric.rubric"),
])
def test_an_old_import_path_gives_the_moved_module_itself_with_a_warning(old, new):
    """The same module object (not a second copy, which would duplicate its state), and a DeprecationWarning."""
    import importlib
    import sys

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old.rsplit('.', 1)[0]}.* moved to"):
        aliased = importlib.import_module(old)
    assert aliased is importlib.import_module(new) and aliased.__name__ == new
