"""Judge kinds, in one table: a spec string's kind decides what judges.

| kind | judge | answers with |
|---|---|---|
| ``rule`` | ``RuleJudge`` | the check's published rule (offline, instant) |
| ``none`` | no judge | nothing: records stay unjudged (``--predict_only`` runs) |
| ``openai:``, ``openai-batch:``, ``hf:``, ``smollm2`` | ``LLMJudge`` | the check's prompt, reply parsed by the check |
| ``hhem:``, ``nli:`` | ``ScorerJudge`` | P(consistent) of the check's (premise, hypothesis) pair |

LLM judge specs take two judge options beside the backend's keys: ``structured=auto|true|false`` (send each
check's JSON schema as ``response_format``; OpenAI-compatible servers only, where ``auto`` is the default: a server
that refuses the schema is judged without it, one that ignores it is read by the free-text readers) and
``template=PATH`` (prompts from a user file, ``hallu_metrics/judges/templates.py``). Both are part of the public spec
when given (the template as its file name and content hash), so results record them; how replies were read (by
schema or as free text) is in the judge's report, under ``judge_calls`` in score's result.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from hallu_metrics.judges.base import Check, Judge, Verdict
from hallu_metrics.judges.llm import LLMJudge
from hallu_metrics.judges.templates import JudgeTemplates, load_templates
from hallubench.core.backends import BACKEND_KINDS, OPENAI_KINDS, CallCache, make_client
from hallubench.core.backends.aio import MicroBatcher
from hallubench.core.errors import HallubenchError
from hallubench.core.specs import Spec, parse_spec

SCORER_KINDS = ("hhem", "nli")


class RuleJudge:
    """Runs each check's ``rule``; a check without a published rule is an error, not a guess. The verdict's raw is
    ``rule``, or ``rule: REASON`` when the check's ``why`` gives one."""

    spec = "rule"

    async def ask(self, check: Check, item: dict) -> Verdict:
        if check.rule is None:
            raise HallubenchError(f"the rule judge has no method for {check.name!r}: use an LLM judge spec")
        if check.why is None:
            return Verdict(check.rule(item), "ok", "rule")
        why = check.why(item) or "nothing the rule looks for was found"  # e.g. no abstention phrase: an answer
        return Verdict(check.rule(item), "ok", f"rule: {why}")

    def report(self) -> dict[str, int]:
        return {"calls": 0, "cached": 0, "failed": 0}

    def close(self) -> None:
        pass


class ScorerJudge:
    """A classifier scorer (NLI / HHEM cross-encoder) as a judge: pairs from all pending items are
    scored in batches, each score cached like an LLM call (key: scorer identity + pair)."""

    def __init__(self, scorer: Any, cache: CallCache | None, spec: str):
        self.scorer, self.cache, self.spec = scorer, cache, spec
        self.stats = {"calls": 0, "cached": 0, "failed": 0}
        self._batcher: MicroBatcher[tuple[str, str], float] = MicroBatcher(self._score_batch)

    def _score_batch(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        self.stats["calls"] += len(pairs)
        return list(self.scorer.score(list(pairs)))

    def _key(self, pair: tuple[str, str]) -> str:
        blob = json.dumps([self.scorer.identity, *pair], ensure_ascii=True)
        return hashlib.sha256(blob.encode("ascii")).hexdigest()

    async def ask(self, check: Check, item: dict) -> Verdict:
        if check.pair is None:
            raise HallubenchError(f"a classifier scorer cannot answer {check.name!r}: use an LLM judge spec")
        pair = check.pair(item)
        key = self._key(pair)
        cached = self.cache.get_many([key]).get(key) if self.cache is not None else None
        if cached is not None:
            self.stats["cached"] += 1
            probability = float(cached)
        else:
            probability = float(await self._batcher.submit(pair))
            if self.cache is not None:
                self.cache.put(key, self.scorer.identity, repr(probability))
        label = check.from_probability(probability) if check.from_probability else probability
        return Verdict(label, "ok", f"{probability:.6f}")

    def report(self) -> dict[str, int]:
        return dict(self.stats)

    def close(self) -> None:
        self._batcher.close()


JUDGE_OPTIONS = ("structured", "template")


STRUCTURED_MODES = ("auto", "true", "false")


def _structured_mode(value: object, kind: str) -> str:
    """``structured=`` as a mode: ``auto`` (the default of ``openai:`` judges: the schema is sent, and a server that
    refuses it is judged without it), ``true`` (the schema is required), ``false`` (never sent)."""
    if value is None:
        return "auto" if kind in OPENAI_KINDS else "false"  # the same default, so batch and realtime share the cache
    mode = str(value).lower() if isinstance(value, (bool, str)) else None
    if mode not in STRUCTURED_MODES:
        raise HallubenchError(f"bad judge spec: structured must be true, false or auto, got {value!r}")
    return mode


def _llm_options(spec: str, checks: Sequence[Check] | None = None) -> tuple[Spec, str, JudgeTemplates | None, str]:
    """(backend spec, structured, templates, public spec with the options) of an LLM judge spec; with ``checks`` (the
    checks the judge may be asked: the caller's benchmarks'), a template file is checked against them."""
    parsed = parse_spec(spec, BACKEND_KINDS)
    backend_args = {k: v for k, v in parsed.args.items() if k not in JUDGE_OPTIONS}
    structured = _structured_mode(parsed.args.get("structured"), parsed.kind)
    if structured != "false" and parsed.kind not in OPENAI_KINDS:
        raise HallubenchError(
            f"bad judge spec: structured={structured} needs an OpenAI-compatible server (openai:...), not {parsed.kind}"
        )
    templates = None
    if "template" in parsed.args:
        templates = load_templates(str(parsed.args["template"]))
        if checks is not None:
            templates.check_names(check.name for check in checks)
            templates.check_fields(checks)  # an unknown {field} is refused now, not after generation
            templates.warn_raw_fields(checks)
    backend = Spec(parsed.kind, backend_args)
    stated = [f"structured={structured}"] if "structured" in parsed.args and structured != "auto" else []
    options = stated + ([f"template={templates.public}"] if templates else [])
    public = backend.public()
    if options:
        public += ("," if backend_args else ":") + ",".join(options)
    return backend, structured, templates, public


def _llm_judge(spec: str, cache: CallCache, retry_unparseable: bool = False) -> Judge:
    backend, structured, templates, public = _llm_options(spec)
    return LLMJudge(make_client(backend, cache), retry_unparseable=retry_unparseable, structured=structured,
                    templates=templates, spec=public)


def _scorer_judge(spec: str, cache: CallCache, retry_unparseable: bool = False) -> Judge:
    from hallu_metrics.scorers import make_classifier_scorer

    parsed = parse_spec(spec, SCORER_KINDS)
    kind = {"hhem": "hhem-2.1", "nli": "nli"}[parsed.kind]  # `hhem:kind=hhem-1.0,...` picks the older model
    return ScorerJudge(make_classifier_scorer({"kind": kind, **parsed.args}), cache, parsed.public())


JUDGE_KINDS: dict[str, Callable[..., Judge]] = {
    "rule": lambda spec, cache, retry_unparseable=False: RuleJudge(),
    **{kind: _llm_judge for kind in BACKEND_KINDS},
    **{kind: _scorer_judge for kind in SCORER_KINDS},
}


def judge_kind(spec: str) -> str:
    """The kind a spec string names (``none`` included); raises on an unknown kind."""
    text = (spec or "").strip()
    kind = text.split(":", 1)[0]
    if text == "none" or kind in JUDGE_KINDS:
        return "none" if text == "none" else kind
    known = ", ".join(["none", *JUDGE_KINDS])
    raise HallubenchError(f"bad judge spec {spec!r}: unknown kind {kind!r} (expected one of: {known})")


def public_spec(spec: str) -> str:
    """The spec as it may be written to results (secrets never are), without building the judge."""
    kind = judge_kind(spec)
    if kind in ("none", "rule"):
        return kind
    if kind in BACKEND_KINDS:
        return _llm_options(spec.strip())[3]
    return parse_spec(spec.strip(), (kind,)).public()


def check_judge_spec(spec: str, reach_timeout: float | None = None, checks: Sequence[Check] = ()) -> None:
    """Validate a whole judge spec without building its judge (no model loads, no call): kind, keys, values and
    judge options, a template file against ``checks`` (the checks it may name: the registry's, from the caller; the
    judge layer knows no benchmark); with ``reach_timeout``, also that an ``openai:`` judge's servers answer.
    Classifier specs are
    checked for their kind and pair syntax here; their keys when the scorer loads."""
    from hallubench.core.backends.hf_local import HFLocalBackend, embedded_model_args

    kind = judge_kind(spec)
    if kind in ("none", "rule"):
        return
    if kind in SCORER_KINDS:
        parse_spec(spec.strip(), SCORER_KINDS)
        return
    backend = _llm_options(spec.strip(), checks)[0]
    if backend.kind == "openai":
        from hallubench.core.backends.openai_http import OpenAIChatBackend  # httpx: only for an openai judge

        server = OpenAIChatBackend.from_args(backend.args)
        try:
            if reach_timeout:
                server.check_reachable(reach_timeout)
        finally:
            server.close()
    elif backend.kind == "openai-batch":
        from hallubench.core.backends.openai_batch import OpenAIBatchBackend

        batch = OpenAIBatchBackend.from_args(backend.args, None)
        try:
            if reach_timeout:
                batch.check_reachable(reach_timeout)
        finally:
            batch.close()
    elif backend.kind == "hf":
        HFLocalBackend.from_args(backend.args)
    else:
        HFLocalBackend.from_args({**embedded_model_args(), **backend.args})


def make_judge(spec: str, cache: CallCache | None = None, retry_unparseable: bool = False) -> Judge:
    """Build a judge from its spec string (not ``none``: callers skip judging for it).
    ``retry_unparseable`` re-asks LLM judges whose cached reply could not be read."""
    kind = judge_kind(spec)
    if kind == "none":
        raise HallubenchError("judge 'none' judges nothing: skip judging instead")
    return JUDGE_KINDS[kind](spec.strip(), cache if cache is not None else CallCache(), retry_unparseable)
