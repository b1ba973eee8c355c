"""`hallubench new-benchmark` (issue 35, item 3): the plan names every piece and registers it at its anchors; a taken
or malformed name is one line and writes nothing; a failure half-way leaves the repository as it was; and (slow) a
benchmark scaffolded in a copy of the repository passes the contract tests there as written."""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import run_cli

from hallubench.scaffold import command, writer
from hallubench.scaffold.layout import PIECES, piece_path
from hallubench.scaffold.writer import Request, plan

ROOT = Path(__file__).resolve().parents[1]
# installed import name -> folder (pyproject's package-dir): a copy on PYTHONPATH needs its folders under both names
INSTALLED_AS = {"hallubench_generators": "generators", "hallubench_tasks": "lm_eval_tasks"}
CONTRACT_TESTS = ("tests/test_contract.py", "tests/test_labelled_sets.py", "tests/test_reply_corpora.py",
                  "tests/test_metric_paths.py", "tests/test_layers.py", "tests/test_prompt_hash.py",
                  "tests/test_dead_code.py", "tests/test_generator_protocol.py", "tests/test_evaluate_modules.py",
                  "tests/test_rule_reasons.py", "tests/test_embedded_plan.py")
# A pytest plugin for the copy: every test that is not parametrized, and the parametrized cases of the new benchmark
# and its family (the other benchmarks' cases are those of the unchanged repository).
CASE_FILTER = """import os


def pytest_collection_modifyitems(config, items):
    wanted = (os.environ["SCAFFOLDED_NAME"], os.environ["SCAFFOLDED_FAMILY"])
    items[:] = [item for item in items if not hasattr(item, "callspec") or any(w in item.name for w in wanted)]
"""


def copy_repository(destination: Path) -> Path:
    """The tracked files of the checkout (as they are in the working tree) copied to ``destination``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for relative in filter(None, listed.decode().split("\0")):
        source = ROOT / relative
        if source.is_file():
            target = destination / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    for import_name, folder in INSTALLED_AS.items():
        (destination / import_name).symlink_to(destination / folder)
    return destination


def snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` (links not followed) -> its digest."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and not any(part in INSTALLED_AS for part in p.parts)}


@pytest.fixture(scope="module")
def unchanged_copy(tmp_path_factory) -> Path:
    """One copy of the repository for the refusals, which write nothing (each test checks it)."""
    return copy_repository(tmp_path_factory.mktemp("unchanged") / "repo")


@pytest.fixture
def repository(tmp_path, monkeypatch) -> Path:
    """A copy of the repository that ``hallubench new-benchmark`` run in this process writes into."""
    copy = copy_repository(tmp_path / "repo")
    monkeypatch.setattr(command, "repository_root", lambda: copy)
    return copy


@pytest.mark.parametrize("generator, judged", [(False, False), (True, True)])
def test_the_plan_writes_every_piece_and_registers_it(generator, judged):
    """Planned against the checkout itself (nothing is written): every piece of the variant, complete Python and
    YAML, and one insertion in each central list."""
    request = Request("toyqa", "hallulens", generator=generator, judged=judged)
    planned = plan(ROOT, request)
    pieces = {**writer.NEW_FILES, **(writer.JUDGED_FILES if judged else writer.READ_FILES),
              **(writer.GENERATOR_FILES if generator else {})}
    assert set(planned.created) == {piece_path(piece, "toyqa", "hallulens") for piece in pieces}
    for path, text in planned.created.items():
        assert "${" not in text, path
        if path.endswith(".py"):
            ast.parse(text)
        elif path.endswith((".yaml", ".jsonl")):
            assert all(yaml.safe_load(part) for part in (text.splitlines() if path.endswith(".jsonl") else [text]))
    registry = planned.edited[PIECES["registry"]]
    assert "    toyqa,\n" in registry and "        toyqa.BENCHMARK,\n    )\n}" in registry
    paths = planned.edited[PIECES["metric_paths"]]
    assert "def toyqa_case(" in paths and '"hallu_metrics.benchmarks.toyqa.chain:judge_item": toyqa_case,\n}' in paths
    assert '"hallu_metrics.benchmarks.toyqa",\n' in planned.edited[PIECES["pyproject"]]
    assert ("| `toyqa` |" in planned.edited[PIECES["readme"]]) and "[docs/toyqa.md]" in planned.edited["README.md"]
    family = planned.edited[piece_path("family_readme", "toyqa", "hallulens")]
    tasks = family.split("#### Tasks", 1)[1].split("####", 1)[0]
    changelog = family.split("### Changelog", 1)[1]
    assert "* `toyqa` (" in tasks and changelog.split("\n- ", 1)[1].startswith("1.0 (")
    assert ('"toyqa_grade": _one_of(' in planned.edited.get(PIECES["label_domains"], "")) == judged
    # the hallulens group aggregates judge_unparseable_rate: only the judged variant reports it, so only it joins
    group = planned.edited.get("lm_eval_tasks/hallulens/_hallulens.yaml", "")
    assert ("  - toyqa\n" in group) == judged
    assert any("not added to group 'hallulens'" in note for note in planned.notes) != judged


@pytest.mark.parametrize("name", ["aardvark_qa", "zebra"])  # its own modules sort before / after the shared ones
def test_the_written_python_passes_the_projects_lint(name, tmp_path):
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    paper = "A long citation, Someone, Other and Third et al., 2026, Proceedings of Some Conference, section 4.21"
    assert len(paper) == command.MAX_PAPER
    for judged in (True, False):
        planned = plan(ROOT, Request(name, "hallulens", generator=True, judged=judged, paper=paper))
        for path, text in planned.created.items():
            if path.endswith(".py"):
                (tmp_path / str(judged) / path).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / str(judged) / path).write_text(text)
    run = subprocess.run([ruff, "check", "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(tmp_path)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout


def test_a_new_family_gets_its_folder_readme_and_group():
    planned = plan(ROOT, Request("toyqa", "toyfamily", judged=True))
    readme = planned.created["lm_eval_tasks/toyfamily/README.md"]
    for heading in ("### Paper", "### Citation", "#### Groups", "#### Tasks", "### Changelog", "### Checklist"):
        assert heading in readme
    group = yaml.safe_load(planned.created["lm_eval_tasks/toyfamily/_toyfamily.yaml"])
    assert group["group"] == "toyfamily" and group["task"] == ["toyqa"]
    assert group["aggregate_metric_list"][0]["metric"] == "judge_unparseable_rate"
    assert not any(path.startswith("lm_eval_tasks/") for path in planned.edited)
    assert any("tests/fixtures/lm_eval_group_runs/" in n and "tests/test_inspect_tasks.py" in n for n in planned.notes)


@pytest.mark.parametrize("argv, message", [
    (["Toy-QA", "--family", "hallulens"], "benchmark name 'Toy-QA' is not a lower-case Python identifier"),
    (["class", "--family", "hallulens"], "benchmark name 'class' is not a lower-case Python identifier"),
    (["toyqa", "--family", "Hallu Lens"], "family 'Hallu Lens' is not a lower-case Python identifier"),
    (["precisewikiqa", "--family", "hallulens"], "benchmark 'precisewikiqa' exists"),
    (["mixedentities", "--family", "hallulens"], "benchmark 'mixedentities' exists"),
    (["longform", "--family", "hallulens"], "'longform' exists: "),
    (["hallulens", "--family", "hallulens"], "'hallulens' clashes with an lm-eval name of hallubench (group in "
                                             "lm_eval_tasks/hallulens/_hallulens.yaml)"),
    (["toyqa", "--family", "hallulens_proxies"], "new family 'hallulens_proxies' would declare a group of that name"),
    (["toyqa", "--family", "toyqa"], "new family 'toyqa' would declare a group of that name, which clashes with the "
                                     "task itself"),
    (["toyqa", "--family", "hallulens", "--paper", "x" * 101], "--paper is 101 characters; cite it in at most 100"),
])
def test_a_taken_or_malformed_name_is_refused_in_one_line(unchanged_copy, monkeypatch, argv, message):
    monkeypatch.setattr(command, "repository_root", lambda: unchanged_copy)
    before = snapshot(unchanged_copy)
    run = run_cli("new-benchmark", *argv)
    assert run.returncode == 2
    assert run.stderr.startswith(f"hallubench: error: {message}") and run.stderr.count("\n") == 1, run.stderr
    assert snapshot(unchanged_copy) == before


def test_an_installed_copy_is_not_written_into(tmp_path, monkeypatch):
    """From a wheel (site-packages holds no pyproject.toml), the scaffold says to run it from a checkout."""
    installed = tmp_path / "site-packages" / "hallubench" / "scaffold" / "command.py"
    monkeypatch.setattr(command, "__file__", str(installed))
    run = run_cli("new-benchmark", "toyqa", "--family", "hallulens")
    assert run.returncode == 2 and "writes into a source checkout" in run.stderr and run.stderr.count("\n") == 1
    assert not (tmp_path / "site-packages" / "hallu_metrics").exists()


def test_a_missing_anchor_writes_nothing(repository):
    domains = repository / PIECES["label_domains"]
    domains.write_text(domains.read_text().replace("DOMAINS = {", "DOMAINS: dict = {"))
    before = snapshot(repository)
    run = run_cli("new-benchmark", "toyqa", "--family", "hallulens", "--judged")
    assert run.returncode == 2
    assert run.stderr == "hallubench: error: tests/test_labelled_sets.py: cannot find 'DOMAINS = {' to insert into\n"
    assert snapshot(repository) == before


def test_a_failed_write_is_rolled_back(repository, monkeypatch):
    """The tenth write fails (a full disk, say): the files written before it are removed, the edited ones restored
    and the new folders gone."""
    written = []

    def failing_write(path: Path, text: str) -> None:
        written.append(path)
        if len(written) == 10:
            from hallubench.core.errors import HallubenchError

            raise HallubenchError(f"cannot write {path}: No space left on device")
        path.write_text(text, encoding="utf-8")

    before = snapshot(repository)
    monkeypatch.setattr(writer, "write_text_atomic", failing_write)
    run = run_cli("new-benchmark", "toyqa", "--family", "toyfamily", "--generator", "--judged")
    assert run.returncode == 2 and "nothing was written: cannot write" in run.stderr
    assert snapshot(repository) == before
    assert not (repository / "hallu_metrics" / "benchmarks" / "toyqa").exists()
    assert not (repository / "generators" / "toyqa").exists()


@pytest.mark.slow
@pytest.mark.parametrize("flags, family", [((), "hallulens"), (("--generator", "--judged"), "toyfamily")])
def test_a_scaffolded_benchmark_passes_the_contract_tests(tmp_path, flags, family):
    """In a copy of the repository: the scaffold as a subprocess, then the contract tests (and, with a generator, the
    generator test it wrote) on the copy, as written (1-2 min per variant on 2 cores)."""
    copy = copy_repository(tmp_path / "repo")
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "scaffolded_cases.py").write_text(CASE_FILTER)
    env = {**os.environ, "PYTHONPATH": f"{copy}{os.pathsep}{tmp_path / 'plugins'}", "HF_HUB_OFFLINE": "1",
           "HF_DATASETS_OFFLINE": "1", "SCAFFOLDED_NAME": "toyqa", "SCAFFOLDED_FAMILY": family}
    scaffold = subprocess.run([sys.executable, "-m", "hallubench.cli", "new-benchmark", "toyqa", "--family", family,
                               *flags], cwd=copy, env=env, capture_output=True, text=True, timeout=120)
    assert scaffold.returncode == 0, scaffold.stderr
    assert (copy / "hallu_metrics" / "benchmarks" / "toyqa" / "__init__.py").is_file()
    tests = [*CONTRACT_TESTS, *(["tests/test_toyqa_generator.py"] if "--generator" in flags else [])]
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "scaffolded_cases",
                          *tests], cwd=copy, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:]
    assert "toyqa" in (copy / "hallu_metrics" / "registry.py").read_text()
