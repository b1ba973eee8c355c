"""The import layers (docs/design.md, "Layers"): the shared core (errors, specs, backends, provenance, seeding,
sources, outputs) imports nothing of the project above it; hallu_metrics imports only the core; generators and
lm_eval_tasks import the core and hallu_metrics, never each other; the Inspect tasks (hallubench.inspect_tasks) sit
beside them and read only the lm-eval tasks' folder, data loader and judge-probe setting; the CLI and reports (the
rest of hallubench) sit on top. An upward import, at module level or inside a function, fails here."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# folder -> import name (pyproject.toml installs generators/ and lm_eval_tasks/ under unique names)
IMPORT_NAMES = {"hallubench": "hallubench", "hallu_metrics": "hallu_metrics", "generators": "hallubench_generators",
                "lm_eval_tasks": "hallubench_tasks"}
PACKAGES = tuple(IMPORT_NAMES)
CORE = ("hallubench.errors", "hallubench.specs", "hallubench.backends", "hallubench.provenance", "hallubench.seeding",
        "hallubench.sources", "hallubench.outputs")
INSPECT_TASKS = "hallubench.inspect_tasks"
# what the Inspect tasks share with the lm-eval tasks: their folder, data loader and judge-probe setting
LM_EVAL_TASK_DATA = {"hallubench_tasks", "hallubench_tasks.dataset_loading", "hallubench_tasks.settings"}


def layer(module: str) -> str:
    if module == "hallubench" or any(module == c or module.startswith(c + ".") for c in CORE):
        return "core"
    if module == INSPECT_TASKS or module.startswith(INSPECT_TASKS + "."):
        return "inspect_tasks"
    top = module.split(".")[0]
    return "app" if top == "hallubench" else top


ALLOWED = {"core": {"core"}, "hallu_metrics": {"core", "hallu_metrics"},
           "hallubench_generators": {"core", "hallu_metrics", "hallubench_generators"},
           "hallubench_tasks": {"core", "hallu_metrics", "hallubench_tasks"},
           "inspect_tasks": {"core", "hallu_metrics", "inspect_tasks"},
           "app": {"core", "hallu_metrics", "hallubench_generators", "hallubench_tasks", "inspect_tasks", "app"}}


def modules() -> list[tuple[str, Path]]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join((IMPORT_NAMES[parts[0]], *parts[1:])).removesuffix(".__init__")
            found.append((name, path))
    return found


def project_imports(path: Path) -> set[str]:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
        imported.update(n for n in names if n.split(".")[0] in IMPORT_NAMES.values() or n.split(".")[0] in PACKAGES)
    return imported


@pytest.mark.parametrize("name, path", modules(), ids=[name for name, _ in modules()])
def test_no_upward_import(name, path):
    upward = sorted(m for m in project_imports(path) if layer(m) not in ALLOWED[layer(name)]
                    and not (layer(name) == "inspect_tasks" and m in LM_EVAL_TASK_DATA))
    assert not upward, f"{name} ({layer(name)}) imports {upward}"


def test_test_support_is_not_shipped():
    """Loopback servers stand in for remote APIs in tests and benchmarks only: no runtime package holds one."""
    assert not [p for package in PACKAGES for p in (ROOT / package).rglob("*loopback*")]


def test_every_package_folder_is_installed_under_its_unique_name():
    """pyproject.toml lists every package (a folder with __init__.py) under its import name, and no installed name
    is a generic one another distribution could also install (`generators`, `lm_eval_tasks`)."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {str(p.parent.relative_to(ROOT)) for folder in PACKAGES for p in (ROOT / folder).rglob("__init__.py")}
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
    in that package's ``prompts.py`` (or a shared layer's module), and its generator in ``generators/<package>/``."""
    from hallu_metrics.evaluate_metrics import module_path

    package = benchmark.judge_item.__module__.removesuffix(".chain")
    assert benchmark.judge_item.__module__ == f"{package}.chain" and package.count(".") == 1
    assert benchmark.sample_metrics.__module__ == f"{package}.metrics"
    folder = ROOT / package.replace(".", "/")
    if benchmark.evaluate_module:
        assert Path(module_path(benchmark.evaluate_module)).parent == folder
    shared = ("hallu_metrics.longform.", "hallu_metrics.faithfulness.", "hallu_metrics.judges.")
    for check in benchmark.checks:
        if check.messages is not None:
            home = check.messages.__module__
            assert home == f"{package}.prompts" or home.startswith(shared), (check.name, home)
    if benchmark.generator:
        assert (ROOT / "generators" / benchmark.generator.split(".")[0]).is_dir()
