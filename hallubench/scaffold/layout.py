"""Where the scaffold writes, in one table: every path a new benchmark's pieces take and every import path its
templates write. A layout move edits these two tables and nothing else."""

from __future__ import annotations

# piece -> path pattern, relative to the repository root ({name}: the benchmark, {family}: its task family).
PIECES: dict[str, str] = {
    "declaration": "hallu_metrics/benchmarks/{name}/__init__.py",
    "prompts": "hallu_metrics/benchmarks/{name}/prompts.py",
    "checks": "hallu_metrics/benchmarks/{name}/checks.py",
    "readers": "hallu_metrics/benchmarks/{name}/readers.py",
    "chain": "hallu_metrics/benchmarks/{name}/chain.py",
    "metrics": "hallu_metrics/benchmarks/{name}/metrics.py",
    "evaluate": "hallu_metrics/benchmarks/{name}/{name}/{name}.py",
    "labels": "hallu_metrics/benchmarks/{name}/labels/{name}_grade.jsonl",
    "provenance": "hallu_metrics/benchmarks/{name}/labels/provenance.yaml",
    "task_yaml": "lm_eval_tasks/{family}/{name}.yaml",
    "family_readme": "lm_eval_tasks/{family}/README.md",
    "group_yaml": "lm_eval_tasks/{family}/_{family}.yaml",  # a new family's; an existing one's is found in its folder
    "docs_page": "docs/{name}.md",
    "generator": "generators/{name}/__init__.py",
    "generator_prompts": "generators/{name}/prompts.py",
    "generator_card": "generators/{name}/card.py",
    "generator_test": "tests/test_{name}_generator.py",
    "grade_corpus": "tests/reply_corpora/{name}_grade.yaml",
    "answer_corpus": "tests/reply_corpora/{name}_answer.yaml",
    # existing files and folders the scaffold reads or inserts into
    "task_families": "lm_eval_tasks",
    "registry": "hallu_metrics/registry.py",
    "readme": "README.md",
    "pyproject": "pyproject.toml",
    "metric_paths": "tests/test_metric_paths.py",
    "label_domains": "tests/test_labelled_sets.py",
}

# template placeholder -> the import path it stands for ({name}: the benchmark).
IMPORTS: dict[str, str] = {
    "package": "hallu_metrics.benchmarks.{name}",
    "generator_package": "hallubench_generators.{name}",
    "metrics_root": "hallu_metrics",
    "contract": "hallu_metrics.contract",
    "judges": "hallu_metrics.judges",
    "evaluate_metrics": "hallu_metrics.evaluate_metrics",
    "backends": "hallubench.core.backends",
    "errors": "hallubench.core.errors",
    "seeding": "hallubench.core.seeding",
    "tables": "hallubench.core.official_files.tables",
    "protocol": "hallubench_generators.common.protocol",
    "publishing": "hallubench_generators.common.publishing",
}


def piece_path(piece: str, name: str, family: str) -> str:
    return PIECES[piece].format(name=name, family=family)


def import_paths(name: str) -> dict[str, str]:
    return {key: pattern.format(name=name) for key, pattern in IMPORTS.items()}
