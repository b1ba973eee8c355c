"""The benchmark contract: walking the registry, every benchmark has all its pieces (lm-eval YAML for each
task, a generator whose Features cover its columns, an `evaluate` module, a section in its family's task
README), and every YAML under lm_eval_tasks/ loads in lm-eval's TaskManager (lm-eval skips a YAML it cannot
parse silently, so this is the only place a broken one shows)."""

import functools
import re
from pathlib import Path

import pytest
import yaml
from support import task_manager

from hallu_metrics.evaluate_metrics import module_names
from hallu_metrics.registry import BENCHMARKS
from hallubench_generators.cli import generator
from hallubench_generators.common.protocol import features_for
from hallubench_tasks import TASKS_DIR

YAML_FILES = sorted(TASKS_DIR.rglob("*.yaml"))


class _Loose(yaml.SafeLoader):
    """Reads lm-eval YAML without resolving `!function` tags."""


_Loose.add_multi_constructor("!", lambda loader, suffix, node: None)


@functools.cache
def read_yaml(path: Path) -> dict:
    """A task, group or template YAML as a dict (read once; callers do not change it)."""
    return yaml.load(path.read_text(), Loader=_Loose) or {}


def declared_tasks() -> dict[str, str]:
    """task name -> family folder, for every task YAML (groups and templates excluded)."""
    found = {}
    for path in YAML_FILES:
        data = read_yaml(path)
        if isinstance(data.get("task"), str) and "group" not in data:
            found[data["task"]] = path.relative_to(TASKS_DIR).parts[0]
    return found


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_benchmark_has_all_its_pieces(name):
    """YAML per task in the family folder, generator Features covering the columns (same types), an
    evaluate module, and a README section naming each task."""
    benchmark = BENCHMARKS[name]
    tasks = declared_tasks()
    for task in benchmark.task_names:
        assert tasks.get(task) == benchmark.family, f"{task}: no YAML under lm_eval_tasks/{benchmark.family}/"
    if benchmark.generator is not None:
        features = features_for(generator(benchmark.generator_name), name)
        assert features is not None, f"{name}: generator {benchmark.generator!r} declares no Features"
        for column, feature in benchmark.columns.items():
            assert column in features, f"{name}: the generator does not write column {column!r}"
            assert features[column] == feature, f"{name}: column {column!r} is {features[column]} in the generator"
    assert benchmark.evaluate_module in module_names(), f"{name}: no evaluate module {benchmark.evaluate_module!r}"
    readme = (TASKS_DIR / benchmark.family / "README.md").read_text()
    missing_parts = [part for part in LM_EVAL_README_PARTS if not re.search(rf"^{re.escape(part)}$", readme, re.M)]
    assert not missing_parts, f"lm_eval_tasks/{benchmark.family}/README.md lacks {missing_parts}"
    entries = task_entries(readme)
    for task in benchmark.task_names:
        assert task in entries, (f"lm_eval_tasks/{benchmark.family}/README.md has no entry for {task} (a bullet "
                                 f"opening with `{task}` under '#### Tasks' or under a heading naming it)")
    assert set(benchmark.headline_metrics) <= set(benchmark.metric_names)


# The parts of an lm-eval task README (lm-eval's tasks/README template), each a heading line of every family README.
LM_EVAL_README_PARTS = ("### Paper", "### Citation", "### Groups, Tags, and Tasks", "#### Tasks", "### Changelog",
                        "### Checklist")


def task_entries(readme: str) -> dict[str, str]:
    """task name -> its entry in a family README: a bullet opening with the task's name in backticks (alone or among
    a list of names) that says something about it, under '#### Tasks' or under a heading that names the task."""
    entries: dict[str, str] = {}
    heading = ""
    for block in re.split(r"^(?=#{2,4} |\* )", readme, flags=re.M):
        if block.startswith("#"):
            heading = block.splitlines()[0]
            continue
        opening = re.match(r"\* ((?:`\w+`[,:]?(?: and| or)?\s+)+)\S", block)
        if not opening:
            continue
        names = re.findall(r"`(\w+)`", opening.group(1))
        if heading == "#### Tasks" or any(f"`{task}`" in heading for task in names):
            entries.update(dict.fromkeys(names, block))
    return entries


def test_every_task_yaml_belongs_to_a_registered_benchmark():
    """No orphan YAML: each task declared in lm_eval_tasks/ is served by a registry entry."""
    from hallu_metrics.registry import TASKS

    assert set(declared_tasks()) <= set(TASKS)


def test_every_yaml_loads_in_lm_eval():
    """TaskManager indexes every task and group declared in the YAML files."""
    manager = task_manager()
    names = set()
    for path in YAML_FILES:
        data = read_yaml(path)
        for key in ("task", "group", "tag"):
            value = data.get(key)
            if isinstance(value, str) and (key != "task" or "group" not in data):
                names.add(value)
    assert names <= set(manager.all_tasks), sorted(names - set(manager.all_tasks))


@pytest.mark.slow
def test_no_name_clashes_with_lm_evals_built_in_tasks():
    """The one test that builds lm-eval's full index (~15k built-in tasks, 10-20 s): no hallubench task, group or
    tag shares a name with a built-in one, all of ours are found beside them, and among them ``hallubench eval``'s
    hint for a mistyped name still proposes ours first and none for a name like nothing (test_bad_inputs.py checks
    the same hints fast against our index only)."""
    from lm_eval.tasks import TaskManager

    from hallubench.cli.eval_checks import check_tasks
    from hallubench.core.errors import HallubenchError

    ours = set(task_manager().all_tasks)
    built_in = set(TaskManager().all_tasks)
    assert not ours & built_in, sorted(ours & built_in)
    everything = task_manager(include_defaults=True).all_tasks
    assert ours <= set(everything)
    with pytest.raises(HallubenchError, match="did you mean precisewikiqa"):
        check_tasks(["precisewikqa"], everything)
    with pytest.raises(HallubenchError, match=r"^unknown task 'nosuch_task_at_all' \(list them"):
        check_tasks(["nosuch_task_at_all"], everything)


def test_dataset_cards_record_what_regenerates_the_set(tmp_path):
    """A generated set's card names the software versions, the generator's prompt/rule hash, the options and the
    checksum of every local input file (here the MixedEntities run with offline sources)."""
    from hallubench.cli import main

    out = tmp_path / "set"
    assert main(["generate", "mixedentities", "--n-per-domain", "1", "--domains", "animal", "--seed", "0",
                 "--out", str(out), "--cache", str(tmp_path / "c.sqlite")]) == 0
    card = (out / "README.md").read_text()
    section = card.split("## Reproducibility", 1)[1]
    assert "- hallubench: " in section and "- lm_eval: " in section
    assert "generator prompts: sha256:" in section and '"seed": 0' in section


def declared_groups() -> dict[str, tuple[dict, str]]:
    """group name -> (its YAML, family folder), for every group YAML."""
    found = {}
    for path in YAML_FILES:
        data = read_yaml(path)
        if "group" in data:
            found[data["group"]] = (data, path.relative_to(TASKS_DIR).parts[0])
    return found


def leaf_tasks(group: str, groups: dict[str, tuple[dict, str]]) -> list[str]:
    return [leaf for child in groups[group][0]["task"]
            for leaf in (leaf_tasks(child, groups) if child in groups else [child])]


@pytest.mark.parametrize("group", sorted(declared_groups()))
def test_every_group_prints_a_documented_aggregate_row(group):
    """lm-eval prints a group's row only when it aggregates something: every group declares an aggregate over a
    metric all its leaf tasks report (else lm-eval warns and averages a subset), documented in its README.
    Collections without a shared metric are tags, not groups."""
    from hallu_metrics.registry import TASKS

    groups = declared_groups()
    config, family = groups[group]
    aggregates = config.get("aggregate_metric_list") or []
    assert aggregates, f"{group}: no aggregate_metric_list, so lm-eval prints no row for it"
    readme = (TASKS_DIR / family / "README.md").read_text()
    section = readme.split("#### Groups", 1)[1].split("####", 1)[0]
    assert f"`{group}`" in section
    for aggregate in aggregates:
        missing = [t for t in leaf_tasks(group, groups) if aggregate["metric"] not in TASKS[t].metric_names]
        assert not missing, f"{group}: {aggregate['metric']} missing in {missing}"
        assert aggregate["metric"] in section, f"{group}: README does not document {aggregate['metric']}"


@pytest.mark.parametrize("task", sorted(declared_tasks()))
def test_every_task_has_its_own_version_in_its_family_changelog(task):
    """As in lm-eval: each task YAML declares its own metadata.version (not inherited from a template), and its
    family README's Changelog has an entry for that version."""
    [path] = [p for p in YAML_FILES if read_yaml(p).get("task") == task]
    version = (read_yaml(path).get("metadata") or {}).get("version")
    assert isinstance(version, (int, float)), f"{path.name}: no metadata.version of its own"
    readme = (TASKS_DIR / declared_tasks()[task] / "README.md").read_text()
    assert "### Changelog" in readme
    changelog = readme.split("### Changelog", 1)[1].split("\n### ", 1)[0]
    assert re.search(rf"^- {re.escape(str(float(version)))} \(", changelog, re.M), f"{task}: no entry for {version}"


def included_chain(path) -> list[str]:
    """The YAML files a task YAML includes, transitively (file names)."""
    data = read_yaml(path)
    included = data.get("include")
    if not included:
        return []
    target = (path.parent / included).resolve()
    return [target.name, *included_chain(target)]


@pytest.mark.parametrize("task", sorted(declared_tasks()))
def test_every_task_yaml_is_a_judged_task(task):
    """Each task YAML includes the shared judged template (JudgedTask: registry metrics, judging filter, the one
    loader); without it lm-eval would load the task with no metrics."""
    [path] = [p for p in YAML_FILES if read_yaml(p).get("task") == task]
    assert "_judged_template.yaml" in included_chain(path), f"{path.name} does not include _judged_template.yaml"


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_benchmark_is_documented_and_its_keys_declared(name):
    """Breakdown keys are columns of its docs (or computed), outcomes and headline metrics declared; the family
    README has a real section (paper, citation, each task, each headline metric); the top-level README has a row
    naming its tasks and linking a docs page that exists."""
    benchmark = BENCHMARKS[name]
    doc_columns = set(benchmark.doc_columns or benchmark.columns)
    for breakdown in benchmark.breakdowns:
        assert breakdown.of_doc is not None or breakdown.key in doc_columns, f"{name}: breakdown {breakdown.key!r}"
    readme = (TASKS_DIR / benchmark.family / "README.md").read_text()
    for heading in ("### Paper", "### Citation", "### Changelog"):
        assert heading in readme, f"lm_eval_tasks/{benchmark.family}/README.md lacks {heading}"
    for metric in benchmark.headline_metrics:
        assert f"`{metric}`" in readme, f"lm_eval_tasks/{benchmark.family}/README.md does not describe {metric}"
    root = TASKS_DIR.parent
    rows = [line for line in (root / "README.md").read_text().splitlines()
            if line.startswith("|") and f"`{benchmark.task_names[0]}`" in line]
    assert rows, f"README.md has no row for {benchmark.task_names[0]}"
    pages = re.findall(r"\(docs/([\w.]+\.md)\)", rows[0])
    assert pages and all((root / "docs" / page).is_file() for page in pages), f"{name}: docs page {pages}"


def test_every_check_declares_the_fields_its_items_carry():
    """Each check of a registered benchmark names its item's fields (what a judge template may insert, refused when
    unknown as the judge is built); its built-in prompt reads only those. That chains give them is checked at every
    ask (hallu_metrics.judges.accounting), so the chain tests fail on a declaration that lies."""
    from hallu_metrics.judges.templates import builtin_template

    for benchmark in BENCHMARKS.values():
        for check in benchmark.checks:
            assert check.fields, f"{benchmark.name}: check {check.name} declares no fields"
            if check.messages is not None:
                read, _ = builtin_template(check)
                assert set(read) <= set(check.fields), f"{check.name} reads {sorted(set(read) - set(check.fields))}"


def task_yaml(task: str) -> Path:
    [path] = [p for p in YAML_FILES if read_yaml(p).get("task") == task]
    return path


def task_setting(path: Path, key: str) -> object:
    """A task YAML's setting, its own or the nearest included file's (as lm-eval merges includes)."""
    data = read_yaml(path)
    if key in data or not data.get("include"):
        return data.get(key)
    return task_setting((path.parent / data["include"]).resolve(), key)


@pytest.mark.parametrize("task", sorted(declared_tasks()))
def test_every_task_prompt_reads_only_declared_columns(task):
    """``doc_to_text`` / ``doc_to_target`` (Jinja, as lm-eval renders them) name only columns of the benchmark's docs:
    lm-eval renders an unknown name as an empty string, so a misspelt column sends the model an empty prompt."""
    from jinja2 import Environment, meta

    from hallu_metrics.registry import TASKS

    columns = set(TASKS[task].required_doc_columns)
    for key in ("doc_to_text", "doc_to_target"):
        template = task_setting(task_yaml(task), key)
        if isinstance(template, str):
            named = meta.find_undeclared_variables(Environment().parse(template))
            assert named <= columns, f"{task}: {key} names {sorted(named - columns)}, not columns of its docs"


def families_groups_and_tags() -> dict[str, set[str]]:
    """family folder -> the groups and tags declared in it."""
    found: dict[str, set[str]] = {}
    for group, (_, family) in declared_groups().items():
        found.setdefault(family, set()).add(group)
    for path in YAML_FILES:
        tags = read_yaml(path).get("tag") or []
        found.setdefault(path.relative_to(TASKS_DIR).parts[0], set()).update([tags] if isinstance(tags, str) else tags)
    return {family: names for family, names in found.items() if names}


@pytest.mark.parametrize("task", sorted(declared_tasks()))
def test_every_task_is_in_a_group_or_tag_of_its_family(task):
    """Where a family folder declares groups or tags, each of its tasks is a leaf of one of its groups or carries one
    of its tags (`--tasks GROUP` silently skips a task left out of the group YAML), unless it cannot join any of its
    groups: it lacks a metric the group aggregates."""
    from hallu_metrics.registry import TASKS

    family = declared_tasks()[task]
    names = families_groups_and_tags().get(family, set())
    groups = declared_groups()
    family_groups = [group for group in names if group in groups]
    if any(task in leaf_tasks(group, groups) for group in family_groups):
        return
    tags = read_yaml(task_yaml(task)).get("tag") or []
    joinable = [group for group in family_groups if {aggregate["metric"] for aggregate in
                                                     groups[group][0].get("aggregate_metric_list") or []}
                <= set(TASKS[task].metric_names)]
    assert set([tags] if isinstance(tags, str) else tags) & names or not joinable, \
        f"{task}: in no group or tag of lm_eval_tasks/{family} (it reports what {', '.join(joinable)} aggregates)"


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_llm_check_has_its_reader_reminder_and_schema(name):
    """A check an LLM judge can ask (it has ``messages``) reads replies (``parse``), re-asks once (``reminder``) and
    declares its reply schema (``structured``, sent under the judge's ``structured=auto``): without them an LLM judge
    reads nothing, never re-asks, or ignores structured outputs. A check with any of these is one for an LLM judge,
    so it has its prompt: without ``messages`` an LLM judge cannot ask it."""
    for check in BENCHMARKS[name].checks:
        if check.messages is None:
            llm_parts = [part for part in ("parse", "reminder", "structured") if getattr(check, part)]
            assert not llm_parts, f"{name}: check {check.name} has {', '.join(llm_parts)} but no prompt (messages)"
            continue
        missing = [part for part in ("parse", "reminder", "structured") if not getattr(check, part)]
        assert not missing, f"{name}: check {check.name} has no {', '.join(missing)}"


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_benchmark_states_what_it_is_and_needs(name):
    """Its machine-readable metadata (``Benchmark.about``, what CI and the embedded default select by): the paper's
    title, an https page for it (arXiv) or None, the section ``paper`` cites, yes/no needs and a runtime class."""
    from typing import get_args

    from hallu_metrics.contract import About, Runtime

    benchmark = BENCHMARKS[name]
    about = benchmark.about
    assert isinstance(about, About), f"{name}: no `about` (paper, needs, runtime, offline) in its declaration"
    assert about.paper_title.strip() and about.section in benchmark.paper, f"{name}: paper {about}"
    assert about.paper_url is None or re.fullmatch(r"https://\S+", about.paper_url), f"{name}: {about.paper_url!r}"
    flags = {flag: getattr(about, flag) for flag in ("network", "gpu", "weights", "judge", "offline")}
    assert all(isinstance(value, bool) for value in flags.values()), f"{name}: not yes/no: {flags}"
    assert about.runtime in get_args(Runtime), f"{name}: runtime {about.runtime!r} is not one of {get_args(Runtime)}"


# A family README entry promising results per key: "per difficulty bin in `hallubench score`", "Breakdowns by ...".
PROMISED_BREAKDOWN = re.compile(r"\bper\b[^.;]*?\bin\s+`hallubench\s+score`|\bBreakdowns? by\b", re.S)


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_breakdown_its_readme_promises_is_declared(name):
    """A task whose README entry promises per-key results in ``hallubench score`` declares its breakdowns: without
    them score prints overall numbers only, silently."""
    benchmark = BENCHMARKS[name]
    entries = task_entries((TASKS_DIR / benchmark.family / "README.md").read_text())
    promised = [task for task in benchmark.task_names if PROMISED_BREAKDOWN.search(entries.get(task, ""))]
    assert benchmark.breakdowns or not promised, f"{name}: README promises a breakdown for {promised}, none declared"
