"""How many omissions of a benchmark's pieces the contract tests catch (docs/design.md, "Adding a benchmark").

For one benchmark, each piece is removed (or broken) in turn in a copy of a commit's tree (never the shared checkout,
where others' edits are half-made), and the contract tests run on the copy (`TESTS` and the benchmark's generator
test, only their cases for this benchmark where they are parametrised). An omission is caught when a test fails; the
unedited copy runs first and must pass (else every omission would look caught). Prints a markdown table by kind of
piece (docs/design.md, "Adding a benchmark").

    .venv/bin/python benchmarks/contract_omissions.py                               # PreciseWikiQA, 48 omissions
    .venv/bin/python benchmarks/contract_omissions.py --scaffold toyqa hallulens   # a scaffolded toy, 11
    (--only NAME... [--no-baseline] splits a run over parallel processes on one --commit)
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
         "tests/test_reply_corpora.py", "tests/test_generator_protocol.py", "tests/test_labelled_sets.py")
BENCHMARK = "precisewikiqa"

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


def together(*edits: Edit) -> Edit:
    def edit(copy: Path) -> None:
        for one in edits:
            one(copy)

    return edit


def cut_corpus(relative: str, keep: int) -> Edit:
    """A reply corpus cut to its first ``keep`` replies."""

    def edit(copy: Path) -> None:
        import yaml

        path = copy / relative
        corpus = yaml.safe_load(path.read_text(encoding="utf-8"))
        corpus["cases"] = corpus["cases"][:keep]
        path.write_text(yaml.safe_dump(corpus, allow_unicode=True, sort_keys=False), encoding="utf-8")

    return edit


def rename_module(folder: str, old: str, new: str) -> Edit:
    """A generator's requests moved out of ``prompts.py`` into another module of its package (imports follow)."""

    def edit(copy: Path) -> None:
        package = copy / folder
        (package / f"{old}.py").rename(package / f"{new}.py")
        for path in package.glob("*.py"):
            text = path.read_text(encoding="utf-8")
            path.write_text(re.sub(rf"\.{old}\b", f".{new}", text), encoding="utf-8")

    return edit


def runs_of(generator: str) -> Edit:
    """Every test module that runs a generator (``generate NAME`` or its module imported), deleted."""

    def edit(copy: Path) -> None:
        pattern = re.compile(rf'"generate", "{generator}"|hallubench_generators(\.| import ){generator}\b')
        for path in (copy / "tests").glob("test_*.py"):
            if path.name != "test_generator_protocol.py" and pattern.search(path.read_text(encoding="utf-8")):
                path.unlink()

    return edit


B = "hallu_metrics/benchmarks/precisewikiqa"
G = "generators/precisewikiqa"
YAML = "lm_eval_tasks/hallulens/precisewikiqa.yaml"
FAMILY_README = "lm_eval_tasks/hallulens/README.md"
ENTRY = r"^\* `precisewikiqa`.*?(?=^\* `)"  # the task's bullet under the family README's '#### Tasks'

# (kind, omission) -> its edit, for PreciseWikiQA (a judged benchmark with a generator and an evaluate module).
OMISSIONS: dict[tuple[str, str], Edit] = {
    ("declaration", "registry line missing"): replace("hallu_metrics/registry.py",
                                                      "        precisewikiqa.BENCHMARK,\n"),
    ("declaration", "checks not declared"): regex(f"{B}/__init__.py", r"^    checks=\([^)]*\),\n"),
    ("declaration", "one check left out of `checks`"): replace(f"{B}/__init__.py", "checks=(ABSTENTION, CORRECTNESS)",
                                                             "checks=(ABSTENTION,)"),
    ("declaration", "a metric not declared"): regex(f"{B}/__init__.py", r'^\s*Metric\("correct_rate".*?\),\n'),
    ("declaration", "unreadable share not declared"): replace(f"{B}/__init__.py", "        unreadable_share(),\n"),
    ("declaration", "breakdown key not a column"): replace(f"{B}/__init__.py", 'Breakdown("difficulty"',
                                                           'Breakdown("difficulty_level"'),
    ("declaration", "breakdowns missing"): regex(f"{B}/__init__.py", r"^    breakdowns=.*?\n"),
    ("declaration", "outcomes missing"): replace(f"{B}/__init__.py", "    outcomes=OUTCOMES,\n"),
    ("declaration", "a column not declared"): replace(f"{B}/__init__.py", '"answer": "string", ', ""),
    ("declaration", "evaluate module not named"): replace(f"{B}/__init__.py",
                                                          '    evaluate_module="hallulens_precisewikiqa",\n'),
    ("declaration", "generator not named"): replace(f"{B}/__init__.py", '    generator="precisewikiqa",\n'),
    ("checks", "a check's reader missing"): replace(f"{B}/checks.py",
                                                    "    parse=lambda text: parse_label(text, CORRECTNESS_LABELS),\n"),
    ("checks", "a check's reminder missing"): regex(f"{B}/checks.py",
                                                    r"^    reminder='Answer with exactly one.*?\n(?=    structured)"),
    ("checks", "a check's structured schema missing"): replace(
        f"{B}/checks.py", '    structured=structured.label("verdict", CORRECTNESS_LABELS),\n'),
    ("checks", "a check's rule stand-in missing"): regex(f"{B}/checks.py",
                                                         r"^    rule=lambda item: \"CORRECT\".*?\n"),
    ("checks", "a check's fields missing"): regex(f"{B}/checks.py",
                                                  r'^    fields=\("question", "gold", "response"\),\n'),
    ("checks", "a check's prompt missing"): replace(f"{B}/checks.py", "    messages=correctness_messages,\n"),
    ("package", "judge prompts.py missing"): remove(f"{B}/prompts.py"),
    ("package", "chain.py missing"): remove(f"{B}/chain.py"),
    ("package", "metrics.py missing"): remove(f"{B}/metrics.py"),
    ("package", "evaluate module missing"): remove(f"{B}/hallulens_precisewikiqa"),
    ("package", "labelled set missing"): remove(f"{B}/labels/correctness.jsonl"),
    ("package", "labelled sets' provenance missing"): remove(f"{B}/labels/provenance.yaml"),
    ("task YAML", "task YAML missing"): remove(YAML),
    ("task YAML", "YAML does not include the judged template"): replace(YAML, "include: ../_judged_template.yaml\n"),
    ("task YAML", "YAML has no metadata.version"): regex(YAML, r"^metadata:\n  version: [\d.]+\n"),
    ("task YAML", "doc_to_text names a missing column"): replace(YAML, "{{question}}", "{{query}}"),
    ("task YAML", "doc_to_target names a missing column"): replace(YAML, "{{answer}}", "{{gold}}"),
    ("task YAML", "task not in its family's group"): replace("lm_eval_tasks/hallulens/_hallulens.yaml",
                                                             "  - precisewikiqa\n"),
    ("generator", "generator module missing"): remove(G),
    ("generator", "generator rows lack a column"): replace(f"{G}/pipeline.py", '"difficulty"', '"difficulty_bin"'),
    ("generator", "generator Features lack a column"): regex(f"{G}/__init__.py", r"^    \*\*BENCHMARK\.columns,\n"),
    ("generator", "CLIENT_OPTION not declared"): regex(f"{G}/__init__.py", r"^CLIENT_OPTION = .*?\n"),
    ("generator", "HELP line not declared"): regex(f"{G}/__init__.py", r"^HELP = .*?\n"),
    ("generator", "sent_prompts() leaves out a request"): replace(
        f"{G}/__init__.py", ',\n            "answer": sent(answer_request("{reference}", "{question}"))', ""),
    ("generator", "generator prompts.py missing (requests elsewhere)"): rename_module(G, "prompts", "requests"),
    ("generator", "generator test missing"): runs_of("precisewikiqa"),
    ("docs", "family README task entry missing"): regex(FAMILY_README, ENTRY),
    ("docs", "family README entry only a mention"): regex(FAMILY_README, ENTRY, "Also see `precisewikiqa`.\n"),
    ("docs", "family README changelog missing"): regex(FAMILY_README, r"^### Changelog.*?(?=^### )"),
    ("docs", "no changelog entry for the task's version"): replace(YAML, "  version: 3.1\n", "  version: 3.2\n"),
    ("docs", "family README Paper / Citation missing"): regex(FAMILY_README, r"^### Paper.*?(?=^### Groups)"),
    ("docs", "a headline metric undocumented"): replace(FAMILY_README, "`correct_rate` (correct / judged)",
                                                        "correct (correct / judged)"),
    ("docs", "README row missing"): regex("README.md", r"^\| HalluLens PreciseWikiQA.*?\n"),
    ("docs", "docs page missing"): remove("docs/precisewikiqa.md"),
    ("tests", "metric-paths case missing"): replace(
        "tests/test_metric_paths.py",
        '    "hallu_metrics.benchmarks.precisewikiqa.chain:judge_item": precisewikiqa_case,\n'),
    ("tests", "reply corpus missing"): remove("tests/reply_corpora/label_correctness.yaml"),
    ("tests", "reply corpus cut to 10 replies"): cut_corpus("tests/reply_corpora/label_correctness.yaml", 10),
}


def out_of_groups(family: str, task: str) -> Edit:
    """The task's line removed from every group YAML of its family folder."""

    def edit(copy: Path) -> None:
        found = [path for path in (copy / "lm_eval_tasks" / family).rglob("*.yaml")
                 if f"  - {task}\n" in path.read_text(encoding="utf-8")]
        if not found:
            raise SystemExit(f"omission no longer applies: {task} is in no group of {family}")
        for path in found:
            path.write_text(path.read_text(encoding="utf-8").replace(f"  - {task}\n", ""), encoding="utf-8")

    return edit


def scaffolded_omissions(name: str, family: str) -> dict[tuple[str, str], Edit]:
    """The omissions issue 35 found uncaught, made in a benchmark ``hallubench new-benchmark NAME --family FAMILY
    --generator --judged`` wrote (its pieces where the scaffold puts them)."""
    corpus = f"tests/reply_corpora/{name}_grade.yaml"
    checks, declaration, generator = f"hallu_metrics/{name}/checks.py", f"hallu_metrics/{name}/__init__.py", \
        f"generators/{name}"
    return {
        ("tests", "reply corpus missing"): remove(corpus),
        ("tests", "reply corpus cut to 10 replies"): cut_corpus(corpus, 10),
        ("task YAML", "task not in its family's group"): out_of_groups(family, name),
        ("checks", "a check's structured schema missing"): regex(checks, r"^    structured=.*?\n"),
        ("checks", "a check's reminder missing"): regex(checks, r"^    reminder=.*?\n"),
        ("declaration", "breakdowns missing"): regex(declaration, r"^    breakdowns=.*?\n"),
        ("task YAML", "doc_to_text names a missing column"): replace(f"lm_eval_tasks/{family}/{name}.yaml",
                                                                     "{{question}}", "{{query}}"),
        ("generator", "sent_prompts() leaves out a request"): regex(f"{generator}/__init__.py",
                                                                    r"(def sent_prompts\(.*?return )\{.*?\}\n",
                                                                    r"\1{}\n"),
        ("generator", "generator prompts.py missing (requests elsewhere)"): rename_module(generator, "prompts",
                                                                                          "requests"),
        ("generator", "generator test missing"): runs_of(name),
        ("docs", "family README task entry missing"): regex(f"lm_eval_tasks/{family}/README.md",
                                                           rf"^\* `{name}`.*?(?=^\* `|^#)"),
    }


def selection(benchmark: str) -> str:
    """pytest ``-k``: the contract tests, their cases for ``benchmark`` only (other benchmarks' cases cannot catch the
    omission of one of its pieces; leaving them out halves a run)."""
    from hallu_metrics.registry import BENCHMARKS

    others = sorted({name for b in BENCHMARKS.values() if b.name != benchmark for name in (b.name, *b.task_names)
                     if benchmark not in name})
    return (f"({benchmark} or every or each or correctness or layer or group or version or corpus or generator) "
            f"and not ({' or '.join(others)})")


def run_tests(copy: Path, benchmark: str) -> tuple[bool, str]:
    """(caught, first failing test) for the contract tests on ``copy``."""
    env = {**os.environ, "PYTHONPATH": str(copy), "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    tests = [test for test in (*TESTS, f"tests/test_{benchmark}_generator.py") if (copy / test).is_file()]
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-k", selection(benchmark), *tests]
    proc = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=1800)
    failed = re.search(r"^(FAILED|ERROR) (\S+)", proc.stdout, re.M)
    return proc.returncode != 0, failed.group(2) if failed else (proc.stdout.strip().splitlines() or [""])[-1]


def snapshot(commit: str, into: Path) -> None:
    """The committed tree of ``commit`` (never the shared working tree, where others' edits are half-made), with the
    copy's folders also under their installed names."""
    archive = subprocess.run(["git", "archive", commit, *COPIED], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for import_name, folder in (("hallubench_generators", "generators"), ("hallubench_tasks", "lm_eval_tasks")):
        (into / import_name).symlink_to(folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run these omissions only (names as in the table)")
    parser.add_argument("--commit", default="HEAD", help="the commit whose tree is measured (default HEAD)")
    parser.add_argument("--dry-run", action="store_true", help="apply each edit to a copy, run no test")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the unedited copy (when a parallel run of the same commit runs it)")
    parser.add_argument("--scaffold", nargs=2, metavar=("NAME", "FAMILY"),
                        help="measure a toy benchmark `hallubench new-benchmark NAME --family FAMILY --generator "
                             "--judged` writes into the copy, with the omissions issue 35 found uncaught")
    args = parser.parse_args()
    rows = ["| kind | omission | caught | by |", "|---|---|---|---|"]
    baseline: list[tuple[tuple[str, str], Edit | None]] = [(("", "none (baseline)"), None)]  # must pass
    with tempfile.TemporaryDirectory(dir=ROOT.parent) as tmp:
        pristine = Path(tmp)
        snapshot(args.commit, pristine)
        benchmark, omissions = BENCHMARK, OMISSIONS
        if args.scaffold:
            benchmark, family = args.scaffold
            subprocess.run([sys.executable, "-m", "hallubench.cli", "new-benchmark", benchmark, "--family", family,
                            "--generator", "--judged"], cwd=pristine, check=True, capture_output=True,
                           env={**os.environ, "PYTHONPATH": str(pristine)})
            omissions = scaffolded_omissions(benchmark, family)
        for (kind, name), edit in [*([] if args.no_baseline else baseline), *omissions.items()]:
            if args.only and edit is not None and name not in args.only:
                continue
            with tempfile.TemporaryDirectory(dir=ROOT.parent) as beside:  # tests find ../shared/data
                copy = Path(beside)
                shutil.copytree(pristine, copy, symlinks=True, dirs_exist_ok=True)
                if edit is not None:
                    edit(copy)
                start = time.perf_counter()
                caught, by = (False, "dry run") if args.dry_run else run_tests(copy, benchmark)
            seconds = time.perf_counter() - start
            rows.append(f"| {kind} | {name} | {'yes' if caught else '**no**'} | `{by}` ({seconds:.0f} s) |")
            print(rows[-1], flush=True)
            if edit is None and caught:
                print(f"the unedited copy fails ({by}): a 'caught' omission would mean nothing", file=sys.stderr)
                return 1
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
