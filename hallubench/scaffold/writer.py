"""What ``hallubench new-benchmark`` writes: every new file rendered from ``templates/``, every insertion into an
existing file, all planned in memory first (a missing anchor writes nothing), then written together and rolled
back together if any write fails."""

from __future__ import annotations

import re
import shutil
import string
import textwrap
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.resources import files
from pathlib import Path

import yaml

from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import write_text_atomic
from hallubench.scaffold import edits
from hallubench.scaffold.layout import IMPORTS, import_paths, piece_path
from hallubench.scaffold.names import LooseLoader

# piece -> template; "{variant}" is "judged" (an LLM or rule judge grades each answer) or "read" (no judge)
NEW_FILES: dict[str, str] = {
    "declaration": "declaration_{variant}", "chain": "chain_{variant}", "metrics": "metrics_{variant}",
    "evaluate": "evaluate_{variant}", "task_yaml": "task_yaml", "docs_page": "docs_page",
}
JUDGED_FILES = {"prompts": "prompts", "checks": "checks", "labels": "labels", "provenance": "provenance",
                "grade_corpus": "grade_corpus"}
READ_FILES = {"readers": "readers", "answer_corpus": "answer_corpus"}
GENERATOR_FILES = {"generator": "generator", "generator_prompts": "generator_prompts",
                   "generator_card": "generator_card", "generator_test": "generator_test"}
NEW_FAMILY_FILES = {"family_readme": "family_readme", "group_yaml": "group_yaml"}

DEFAULT_PAPER = "the paper to cite (authors, year, section)"
# the metrics each variant declares (judged: True), as its declaration template does, with what each counts
METRICS: dict[bool, dict[str, str]] = {
    True: {"hallucination_rate": "incorrect / graded", "judge_unparseable_rate": "ungraded / N"},
    False: {"hallucination_rate": "wrong or unreadable / N", "invalid_rate": "unreadable / N"},
}


@dataclass(frozen=True)
class Request:
    """One ``new-benchmark`` call."""

    name: str
    family: str
    generator: bool = False
    judged: bool = False
    paper: str = DEFAULT_PAPER


@dataclass
class Plan:
    """Relative path -> content of every file to create and every file to rewrite, and notes for the user."""

    created: dict[str, str] = field(default_factory=dict)
    edited: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def render(template: str, values: dict[str, str]) -> str:
    text = (files("hallubench.scaffold") / "templates" / f"{template}.tmpl").read_text(encoding="utf-8")
    return string.Template(text).substitute(values)


def sorted_project_imports(source: str) -> str:
    """Each run of one-line ``from <project package> import ...`` lines in import order (isort's, as ruff checks it):
    where the benchmark's own modules fall among the shared ones depends on its name."""
    roots = "|".join(sorted({re.escape(path.split(".")[0]) for path in IMPORTS.values()}))
    run = re.compile(rf"(?:^from (?:{roots})(?:\.\w+)* import [^(\n]*\n)+", re.M)
    return run.sub(lambda found: "".join(sorted(found.group(0).splitlines(keepends=True),
                                                key=lambda line: line.split()[1])), source)


def template_values(request: Request) -> dict[str, str]:
    """Every placeholder of the templates: names, import paths, and the wording that differs by variant."""
    name, judged = request.name, request.judged
    title = name.replace("_", " ").title()
    generate = f"`hallubench generate {name}`"
    values = {
        **import_paths(name),
        "name": name, "family": request.family, "paper": request.paper, "title": title,
        "section": _section(request.paper),
        "family_title": request.family.replace("_", " ").title(), "check": f"{name}_grade",
        "class_name": "".join(part.capitalize() for part in name.split("_")),
        "date": datetime.now(timezone.utc).date().isoformat(),
        "generator_value": f'"{name}"' if request.generator else "None",
        "data_source": generate if request.generator else "a JSON-lines file or saved set, `--metadata dataset=PATH`",
        "data_source_long": (
            f"{generate} `--source items.jsonl --n N --out DIR` draws N items of a JSON-lines file (question, answer, "
            "topic per line) in a seeded order; `--writer SPEC` has an LLM reword each question."
            if request.generator else
            "A JSON-lines file, a parquet file or a saved dataset with the columns `id`, `question`, `answer`, "
            "`topic`, given as `--metadata '{\"dataset\": PATH}'`."),
        "judge_metadata": ', "judge": "SPEC"' if judged else "",
        "group_metric": "judge_unparseable_rate" if judged else "invalid_rate",
        "task_summary": (
            "a short question; a judge grades the model's answer against the gold answer." if judged else
            "a short question; the model's answer is read from its reply (no judge) and compared with the gold "
            "answer."),
        "metric_summary": ", ".join(f"`{metric}` ({what})" for metric, what in METRICS[judged].items()),
        "metric_list": "\n".join(f"- `{metric}`: {what}" for metric, what in METRICS[judged].items()),
    }
    values["task_entry"] = _wrapped(render("family_task", values))
    values["changelog_entry"] = _wrapped(render("family_changelog", values))
    return values


def _section(paper: str) -> str:
    """The section ``paper`` cites (``About.section``, a part of ``Benchmark.paper``), else the whole citation."""
    found = re.search(r"(?:section|§)\s*[\w.]+", paper)
    return found.group(0) if found else paper


def _wrapped(entry: str) -> str:
    """A markdown list entry wrapped as the family READMEs are (continuation lines indented two spaces)."""
    return textwrap.fill(entry.strip(), width=116, subsequent_indent="  ", break_on_hyphens=False) + "\n"


def plan(root: Path, request: Request) -> Plan:
    """Everything the scaffold writes for ``request``, in memory; a missing anchor is an error and writes nothing."""
    name, family = request.name, request.family
    values = template_values(request)
    variant = "judged" if request.judged else "read"
    pieces = {**NEW_FILES, **(JUDGED_FILES if request.judged else READ_FILES),
              **(GENERATOR_FILES if request.generator else {})}
    family_readme = piece_path("family_readme", name, family)
    new_family = not (root / family_readme).parent.is_dir()
    result = Plan()
    if new_family:
        pieces |= NEW_FAMILY_FILES
        result.notes.append(f"new family {family!r}: keep one real lm-eval run of its group in "
                            "tests/fixtures/lm_eval_group_runs/ (tests/test_group_reports.py) and add it to FAMILIES "
                            "of tests/test_inspect_tasks.py (one Inspect run per family)")
    for piece, template in pieces.items():
        path = piece_path(piece, name, family)
        if (root / path).exists():
            raise HallubenchError(f"{path} exists; nothing was written")
        text = render(template.format(variant=variant), values)
        result.created[path] = sorted_project_imports(text) if path.endswith(".py") else text

    def edit(piece: str, change) -> None:
        path = piece_path(piece, name, family)
        text = result.edited.get(path) or (root / path).read_text(encoding="utf-8")
        result.edited[path] = change(text, path)

    package = values["package"]
    parent, _, leaf = package.rpartition(".")
    edit("registry", lambda t, p: edits.sorted_import(t, parent, leaf, p))
    edit("registry", lambda t, p: edits.before_closing(t, "BENCHMARKS: dict[str, Benchmark] = {", "\n    )\n}",
                                                       f"        {leaf}.BENCHMARK,\n", p))
    edit("readme", lambda t, p: edits.after_table(t, "| benchmark | lm-eval tasks | data | status |",
                                                  render("readme_row", values), p))
    case = render(f"metric_case_{variant}", values)
    edit("metric_paths", lambda t, p: edits.before_anchor(t, "\ndef judging_chain(", case, p))
    edit("metric_paths", lambda t, p: edits.before_closing(t, "CASE_BUILDERS: dict[", "\n}\n",
                                                           f'    "{package}.chain:judge_item": {name}_case,\n', p))
    if request.judged:
        edit("label_domains", lambda t, p: edits.before_closing(
            t, "DOMAINS = {", "\n}\n", f'    "{values["check"]}": _one_of("CORRECT", "INCORRECT"),  # {name}\n', p))
    packages = [package, *([values["generator_package"]] if request.generator else [])]
    edit("pyproject", lambda t, p: edits.before_closing(t, "\npackages = [", "\n]\n",
                                                        "".join(f'    "{k}",\n' for k in packages), p))
    if not new_family:
        edit("family_readme", lambda t, p: edits.into_list(t, "#### Tasks", values["task_entry"], p, first=False))
        edit("family_readme", lambda t, p: edits.into_list(t, "### Changelog", values["changelog_entry"], p,
                                                           first=True))
        _join_group(root, request, result)
    return result


def _join_group(root: Path, request: Request, result: Plan) -> None:
    """The task added to its family's group when the group's aggregated metrics are among its own; else a note."""
    folder = (root / piece_path("family_readme", request.name, request.family)).parent
    for path in sorted(folder.glob("*.yaml")):
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=LooseLoader) or {}
        if "group" not in config:
            continue
        aggregated = {entry["metric"] for entry in config.get("aggregate_metric_list") or []}
        ours = set(METRICS[request.judged])
        relative = str(path.relative_to(root))
        if aggregated <= ours:
            result.edited[relative] = edits.into_yaml_list(
                result.edited.get(relative) or path.read_text(encoding="utf-8"), "task", request.name, relative)
        else:
            result.notes.append(f"not added to group {config['group']!r} ({relative}): it aggregates "
                                f"{', '.join(sorted(aggregated - ours))}, which {request.name} does not report")


def apply(root: Path, planned: Plan) -> None:
    """Write the plan; if any write fails, remove what was created and restore what was edited, then raise."""
    originals = {path: (root / path).read_text(encoding="utf-8") for path in planned.edited}
    made: list[Path] = []
    try:
        for path, text in planned.created.items():
            target = root / path
            for folder in reversed(target.parents):
                if not folder.exists():
                    folder.mkdir()
                    made.append(folder)
            write_text_atomic(target, text)
            made.append(target)
        for path, text in planned.edited.items():
            write_text_atomic(root / path, text)
    except (OSError, HallubenchError) as exc:
        for path, text in originals.items():
            write_text_atomic(root / path, text)
        for written in reversed(made):
            if written.is_dir():
                shutil.rmtree(written, ignore_errors=True)
            else:
                written.unlink(missing_ok=True)
        raise HallubenchError(f"nothing was written: {exc}") from exc
