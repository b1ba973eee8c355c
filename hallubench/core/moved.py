"""Old import paths of modules moved by the layout of issue 35 (``hallubench.scoring`` is now
``hallubench.reporting.scoring``, ``hallu_metrics.precisewikiqa`` is ``hallu_metrics.benchmarks.precisewikiqa``, ...),
kept importable for one release: importing an old name gives the new module itself (one module object, not a copy)
with a ``DeprecationWarning``. Installed by the top-level packages' ``__init__``."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType

MOVED: dict[str, str] = {
    "hallubench_generators.offline_questions": "hallubench_generators.common.offline_questions",
    "hallubench_generators.sources.articles": "hallubench_generators.common.articles",
    "hallubench_generators.question_checks": "hallubench_generators.common.question_checks",
    "hallu_metrics.faithfulness.baseline": "hallu_metrics.rubric.baseline",
    "hallu_metrics.faithfulness.prompts": "hallu_metrics.rubric.prompts",
    "hallu_metrics.faithfulness.rubric": "hallu_metrics.rubric.rubric",
    "hallu_metrics.nonexistent_refusal": "hallu_metrics.benchmarks.nonexistent_refusal",
    "hallu_metrics.hhem_summarization": "hallu_metrics.benchmarks.hhem_summarization",
    "hallu_metrics.wildhallucinations": "hallu_metrics.benchmarks.wildhallucinations",
    "hallubench_generators.difficulty": "hallubench_generators.common.difficulty",
    "hallubench_generators.publishing": "hallubench_generators.common.publishing",
    "hallubench_generators.quota_fill": "hallubench_generators.common.quota_fill",
    "hallubench.faithfulness_report": "hallubench.reporting.faithfulness_report",
    "hallubench.judge_templates_cli": "hallubench.cli.judge_templates",
    "hallubench_generators.chunking": "hallubench_generators.common.chunking",
    "hallubench_generators.protocol": "hallubench_generators.common.protocol",
    "hallubench_generators.sources": "hallubench_generators.common.articles",
    "hallubench.agreement_figures": "hallubench.reporting.agreement_figures",
    "hallu_metrics.precisewikiqa": "hallu_metrics.benchmarks.precisewikiqa",
    "hallubench.judge_comparison": "hallubench.reporting.judge_comparison",
    "hallu_metrics.faithfulness": "hallu_metrics.benchmarks.faithfulness",
    "hallubench.dataset_samples": "hallubench.reporting.dataset_samples",
    "hallubench.judge_failures": "hallubench.reporting.judge_failures",
    "hallubench.knowledge_cli": "hallubench.cli.knowledge",
    "hallu_metrics.faitheval": "hallu_metrics.benchmarks.faitheval",
    "hallubench.inspect_logs": "hallubench.reporting.inspect_logs",
    "hallubench.paper_tables": "hallubench.reporting.paper_tables",
    "hallu_metrics.halueval": "hallu_metrics.benchmarks.halueval",
    "hallu_metrics.longwiki": "hallu_metrics.benchmarks.longwiki",
    "hallu_metrics.simpleqa": "hallu_metrics.benchmarks.simpleqa",
    "hallubench.eval_checks": "hallubench.cli.eval_checks",
    "hallubench.hub_results": "hallubench.reporting.hub_results",
    "hallubench.provenance": "hallubench.core.provenance",
    "hallubench.agreement": "hallubench.reporting.agreement",
    "hallubench.stability": "hallubench.reporting.stability",
    "hallu_metrics.popqa": "hallu_metrics.benchmarks.popqa",
    "hallubench.backends": "hallubench.core.backends",
    "hallu_metrics.anah": "hallu_metrics.benchmarks.anah",
    "hallubench.compare": "hallubench.reporting.compare",
    "hallubench.outputs": "hallubench.core.outputs",
    "hallubench.scoring": "hallubench.reporting.scoring",
    "hallubench.seeding": "hallubench.core.seeding",
    "hallubench.sources": "hallubench.core.official_files",
    "hallubench.errors": "hallubench.core.errors",
    "hallubench.report": "hallubench.reporting.report",
    "hallubench.viewer": "hallubench.reporting.viewer",
    "hallubench.costs": "hallubench.reporting.costs",
    "hallubench.specs": "hallubench.core.specs",
    "hallubench.jobs": "hallubench.reporting.jobs",
    "hallubench.plan": "hallubench.reporting.plan",
}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the module now at ``target``."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the target module ran when it was imported."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = new_name(name)
        if new is None:
            return None
        warnings.warn(f"{name} moved to {new}; the old name goes in the next release", DeprecationWarning,
                      stacklevel=2)
        return importlib.machinery.ModuleSpec(name, _Alias(new))


def new_name(old: str) -> str | None:
    """Where the module once named ``old`` lives now (a moved package's submodules included), or None."""
    parts = old.split(".")
    for end in range(len(parts), 1, -1):  # the longest moved prefix: one dict lookup per level, on every import
        after = MOVED.get(".".join(parts[:end]))
        if after is not None:
            return ".".join([after, *parts[end:]])
    return None


def install() -> None:
    """Put the finder first in ``sys.meta_path`` (once), so that an old name never reaches the path finder (which would
    load a second copy of a moved package's submodule)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
