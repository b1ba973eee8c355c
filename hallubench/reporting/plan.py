"""``hallubench plan``: what judging a set will cost before anything is judged (docs/cost.md, "plan").

The benchmark's own judging chain runs over the set's items (and the samples log's responses, when given) with
stand-in judges that call no model: each check's prompt is rendered exactly as an LLM judge would be sent it and
counted with a tokenizer, and the verdict that drives the chain comes from the check's rule (the embedded stand-in).
Three passes give the range: ``low`` takes every early stop the chain has (abstained, refused, no facts) and the
shortest readable replies, ``expected`` follows the rule stand-in, ``high`` takes every further step and replies of
``max_tokens``. Long-form checks that extract claims return as many claims per sentence as the samples log's judged
records show, else ``CLAIMS_PER_SENTENCE``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hallu_metrics.contract import Benchmark
from hallu_metrics.judges.accounting import BATCH_KIND, Price, batch_spec, price_for
from hallu_metrics.judges.base import Check, Verdict
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.kinds import SCORER_KINDS, judge_kind, public_spec
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import benchmark_for_task
from hallu_metrics.settings import resolve_settings
from hallubench.core.backends import OPENAI_KINDS, embedded_model_args
from hallubench.core.backends.cache import default_cache_path
from hallubench.core.errors import HallubenchError
from hallubench.core.specs import parse_spec
from hallubench.reporting.costs import duration, money

MODES = ("low", "expected", "high")
MAX_LATENCY_S = 86_400.0  # one day per call: the most a judge spec's timeout allows
STOP = {"abstention": True, "knowledgeable": False, "anah_facts": False}  # labels that end a chain early
GO_ON = {"abstention": False, "knowledgeable": True, "anah_facts": True}  # labels that take every further step
EXTRACTIONS = ("claim_extraction", "atomic_facts")  # checks whose label is a list of claims
CLAIMS_PER_SENTENCE = (1.0, 3.0, 6.0)  # low, expected, high without a judged log (a project assumption, docs/cost.md)
REPLY_TOKENS = 40  # expected reply of a label check: the label and a sentence of reasons (readers accept both)
LABEL_TOKENS = 4  # the shortest readable reply: the label alone
CLAIM_TOKENS = 16  # a claim line in an extraction reply ("- Sirius is a binary star.")
SHORT_ANSWER = "The answer is {}."  # a short-form response stand-in without a samples log
LONG_SENTENCES = 8  # sentences of a long-form response stand-in without a samples log
STAND_IN_TOKENIZER = "SmolLM2-135M-Instruct"


# ---------------------------------------------------------------- tokens


class TokenCounter:
    """Tokens of a chat prompt as a server counts them (the chat template applied, with the generation prompt) and of
    a reply; ``name`` says whose tokenizer."""

    def __init__(self, tokenizer: Any, name: str):
        self.tokenizer, self.name = tokenizer, name

    def prompt(self, messages: Sequence[Mapping[str, str]]) -> int:
        text = self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        return self.text(text)

    def text(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))


def _save_atomically(tokenizer: Any, folder: Path) -> None:
    """The converted tokenizer under hallubench's cache folder (a temporary folder renamed into place)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=f".{folder.name}.") as tmp:
        tokenizer.save_pretrained(tmp)
        try:
            os.replace(tmp, folder)
        except OSError:  # another process saved it first
            pass


@functools.lru_cache(maxsize=4)
def load_counter(spec: str) -> TokenCounter:
    """The judge's own tokenizer when it is local (``hf:``, ``smollm2``), else the stand-in: SmolLM2-135M-Instruct's,
    shipped offline with the embedded model (converted from its GGUF once, then kept in the cache folder)."""
    from transformers import AutoTokenizer

    kind = judge_kind(spec)
    if kind == "hf":
        args = parse_spec(spec.strip(), ("hf",)).args
        extra = {"gguf_file": args["gguf_file"]} if args.get("gguf_file") else {}
        try:
            return TokenCounter(AutoTokenizer.from_pretrained(str(args["pretrained"]), **extra), public_spec(spec))
        except (OSError, ValueError, KeyError) as exc:
            raise HallubenchError(f"plan: cannot load the tokenizer of {public_spec(spec)} ({exc})") from exc
    folder = default_cache_path().parent / "tokenizers" / STAND_IN_TOKENIZER
    if (folder / "tokenizer.json").is_file():
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
    else:
        model = embedded_model_args()
        tokenizer = AutoTokenizer.from_pretrained(model["pretrained"], gguf_file=model["gguf_file"])
        _save_atomically(tokenizer, folder)
    return TokenCounter(tokenizer, "smollm2" if kind == "smollm2" else f"{STAND_IN_TOKENIZER} (stand-in)")


# ---------------------------------------------------------------- stand-in judging


@dataclass
class Tally:
    """What one role would send in one pass: calls and tokens (a request sent twice counts once: the cache answers
    the second)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seen: set[str] = field(default_factory=set)


class PlanJudge:
    """Counts what an LLM judge of ``spec`` would be sent for ``role`` and answers with stand-in verdicts (see the
    module docstring); a classifier counts calls only, the rule judge nothing."""

    def __init__(self, spec: str, mode: str, counter: TokenCounter | None, tally: Tally, claims: float):
        self.spec, self.mode, self.counter, self.tally, self.claims = spec, mode, counter, tally, claims
        self.kind = judge_kind(spec)
        self._carry = 0.0  # claims owed to later sentences when the rate is fractional

    def _claims(self, sentence: str) -> list[str]:
        """``claims`` per sentence on average (fractions carried over), each a distinct span of the sentence."""
        self._carry += self.claims
        n = max(int(self._carry), 0)
        self._carry -= n
        words = sentence.split() or [sentence]
        step = max(len(words) // max(n, 1), 1)
        return [" ".join(words[i * step:(i + 1) * step] or words[-step:]) + f" ({i + 1})" for i in range(n)]

    def _label(self, check: Check, item: dict) -> Any:
        if check.name in EXTRACTIONS:
            return self._claims(str(item.get("sentence", "")))
        if self.mode == "low" and check.name in STOP:
            return STOP[check.name]
        if self.mode == "high" and check.name in GO_ON:
            return GO_ON[check.name]
        return check.rule(item) if check.rule is not None else None

    def _reply_tokens(self, check: Check, label: Any) -> int:
        if check.name in EXTRACTIONS:
            wanted = CLAIM_TOKENS * len(label) + LABEL_TOKENS
        else:
            wanted = {"low": LABEL_TOKENS, "expected": REPLY_TOKENS, "high": check.max_tokens}[self.mode]
        return min(wanted, check.max_tokens)

    async def ask(self, check: Check, item: dict) -> Verdict:
        label = self._label(check, item)
        if self.kind == "rule":
            return Verdict(label, "ok", "plan")
        if self.kind in SCORER_KINDS:
            self.tally.calls += 1
            return Verdict(check.rule(item) if check.rule else 1.0, "ok", "plan")
        if check.messages is None:
            raise HallubenchError(f"plan: {self.spec} cannot answer {check.name!r} (no LLM prompt)")
        messages = check.messages(item)
        key = hashlib.sha256(json.dumps([messages, check.max_tokens], ensure_ascii=False).encode("utf-8",
                                                                                               "surrogatepass"))
        if key.hexdigest() in self.tally.seen:
            return Verdict(label, "ok", "plan")
        self.tally.seen.add(key.hexdigest())
        self.tally.calls += 1
        self.tally.prompt_tokens += self.counter.prompt(messages) if self.counter else 0
        self.tally.completion_tokens += self._reply_tokens(check, label)
        raw = "\n".join(f"- {c}" for c in label) if isinstance(label, list) else str(label)
        return Verdict(label, "ok", raw)

    def report(self) -> dict[str, int]:
        return {"calls": self.tally.calls}

    def close(self) -> None:
        pass


class PlanJudgeSet(JudgeSet):
    """Stand-in judges per role for one pass."""

    def __init__(self, specs: Mapping[str, str], settings: Mapping[str, object], mode: str,
                 counters: Mapping[str, TokenCounter | None], claims: float):
        super().__init__(specs, settings=settings)
        self.mode, self.counters, self.claims = mode, counters, claims
        self.tallies: dict[str, Tally] = {}
        self._judges: dict[str, PlanJudge] = {}

    def get(self, role: str = "judge") -> PlanJudge:  # type: ignore[override]
        if role not in self._judges:
            spec = self.specs.get(role) or self.specs["judge"]
            tally = self.tallies.setdefault(role, Tally())
            self._judges[role] = PlanJudge(spec, self.mode, self.counters.get(spec), tally, self.claims)
        return self._judges[role]


# ---------------------------------------------------------------- inputs


def claims_per_sentence(records: Sequence[Mapping[str, Any]]) -> float | None:
    """Claims (after de-duplication) per judged sentence snippet in a log's LongWiki records, or facts per sentence in
    WildHallucinations records; None when the log holds no judged long-form record."""
    claims = units = 0
    for record in records:
        if record.get("outcome") not in ("judged", "no_claims"):
            continue
        if isinstance(record.get("snippets"), list) and record["snippets"]:
            claims += int(record.get("n_claims") or 0)
            units += len(record["snippets"])
        elif isinstance(record.get("sentences"), list) and record["sentences"]:
            claims += int(record.get("n_facts") or 0)
            units += len(record["sentences"])
    return claims / units if units else None


def stand_in_response(doc: Mapping[str, Any], long_form: bool) -> str:
    """A response for planning without a samples log: for long-form benchmarks the first ``LONG_SENTENCES``
    sentences of the doc's reference text, else a one-sentence answer giving the doc's gold answer."""
    if long_form:
        from hallu_metrics.longform.sentences import split_sentences

        reference = next((str(doc[k]) for k in ("reference", "text", "description") if doc.get(k)), "")
        if not reference:
            raise HallubenchError("plan: the set's docs carry no reference text to stand in for responses; pass "
                                  "--samples with the model's responses")
        return " ".join(split_sentences(reference)[:LONG_SENTENCES])
    golds = doc.get("golds")
    gold = doc.get("answer") or (golds[0] if isinstance(golds, list) and golds else None)
    return SHORT_ANSWER.format(gold) if gold else ""


# ---------------------------------------------------------------- the plan


def _roles(benchmark: Benchmark, specs: Mapping[str, str]) -> dict[str, str]:
    return {role: specs.get(role) or specs["judge"] for role in benchmark.judge_roles if specs.get("judge")}


def concurrency_of(spec: str) -> int:
    """The spec's ``concurrency`` (openai; the backend's default 8), else 1 (local models batch instead)."""
    if judge_kind(spec) != "openai":
        return 1
    return int(parse_spec(spec.strip(), ("openai",)).args.get("concurrency", 8))


def price_twins(spec: str) -> tuple[tuple[str, str], ...]:
    """An OpenAI-compatible judge's realtime and Batch API specs (``realtime_cost_usd``, ``batch_cost_usd``): the plan
    prices both, whichever the run uses (``cost_usd``)."""
    if judge_kind(spec) not in OPENAI_KINDS:
        return ()
    realtime = spec.replace(f"{BATCH_KIND}:", "openai:", 1)
    return ("realtime_cost_usd", realtime), ("batch_cost_usd", batch_spec(realtime))


def make_plan(task: str, docs: Sequence[dict], responses: Sequence[str], flags: Mapping[str, Any],
              claims: float | None = None, prices: Mapping[str, Price] | None = None,
              latency: float | None = None, stated: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Calls and tokens per role and in total for ``low``, ``expected`` and ``high`` (module docstring); time at
    each role's concurrency for ``latency`` seconds per call; cost of ``expected`` (and its range) at ``prices``.
    ``stated``: lm-eval's metadata, for the plan of an eval run."""
    benchmark = benchmark_for_task(task)
    settings = resolve_settings(benchmark, task, stated or {}, flags=flags)
    specs = {role: settings[role] for role in benchmark.judge_roles if settings[role]}
    roles = _roles(benchmark, specs) if specs.get("judge", "none") != "none" else {}
    plan: dict[str, Any] = {"task": task, "items": len(docs), "roles": {}, "total": {}, "assumptions": {}}
    if not roles:
        plan["total"] = {mode: {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0} for mode in MODES}
        return plan
    counters = {spec: (load_counter(spec) if judge_kind(spec) not in ("rule", *SCORER_KINDS) else None)
                for spec in set(roles.values())}
    rates = dict(zip(MODES, CLAIMS_PER_SENTENCE)) if claims is None else {"low": claims * 0.8, "expected": claims,
                                                                           "high": claims * 1.2}
    passes: dict[str, dict[str, Tally]] = {}
    for mode in MODES:
        judges = PlanJudgeSet(specs, settings, mode, counters, rates[mode])
        judge_responses(benchmark, list(responses), list(docs), judges, desc=f"plan {task} ({mode})")
        passes[mode] = judges.tallies
    for role, spec in roles.items():
        entry: dict[str, Any] = {"spec": public_spec(spec), "concurrency": concurrency_of(spec)}
        for mode in MODES:
            tally = passes[mode].get(role, Tally())
            entry[mode] = {"calls": tally.calls, "prompt_tokens": tally.prompt_tokens,
                           "completion_tokens": tally.completion_tokens}
        for key, priced_as in (("cost_usd", entry["spec"]), *price_twins(entry["spec"])):
            price = price_for(role, priced_as, prices or {})
            for mode in MODES if price is not None else ():
                entry[mode][key] = price.cost(entry[mode]["prompt_tokens"], entry[mode]["completion_tokens"])
        if latency is not None:
            for mode in MODES:
                entry[mode]["seconds"] = entry[mode]["calls"] * latency / entry["concurrency"]
        plan["roles"][role] = entry
    for mode in MODES:
        keys = {k for entry in plan["roles"].values() for k in entry[mode]}
        plan["total"][mode] = {k: sum(e[mode].get(k, 0) for e in plan["roles"].values()) for k in sorted(keys)}
    plan["assumptions"] = {
        "tokenizer": {spec: counter.name for spec, counter in counters.items() if counter is not None},
        "claims_per_sentence": rates if benchmark.name in ("longwiki", "wildhallucinations") else None,
        "claims_source": None if benchmark.name not in ("longwiki", "wildhallucinations") else (
            "samples log" if claims is not None else "assumed (docs/cost.md)"),
        "reply_tokens": {"low": LABEL_TOKENS, "expected": REPLY_TOKENS, "high": "max_tokens of each check"},
        "latency_s": latency,
    }
    return plan


def _row(name: str, modes: Mapping[str, Mapping[str, float]]) -> str:
    def cell(key: str, fmt) -> str:
        low, mid, high = (modes[m].get(key) for m in MODES)
        return "n/a" if mid is None else f"{fmt(mid)} ({fmt(low)}-{fmt(high)})"

    from hallubench.core.backends.client import short_count

    return (f"| {name} | {cell('calls', str)} | {cell('prompt_tokens', short_count)} | "
            f"{cell('completion_tokens', short_count)} | {cell('seconds', duration)} | {cell('cost_usd', money)} | "
            f"{cell('realtime_cost_usd', money)} | {cell('batch_cost_usd', money)} |")


def plan_table(plan: Mapping[str, Any]) -> str:
    """Markdown: one row per role and the total, each cell ``expected (low-high)``; the cost at the judge spec's
    price, and an OpenAI-compatible judge's cost realtime and through the Batch API."""
    lines = [f"plan for {plan['task']}: {plan['items']} items", "",
             "| role | calls | prompt tokens | completion tokens | time | cost | realtime cost | batch cost |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [_row(f"{role} ({entry['spec']})", entry) for role, entry in plan["roles"].items()]
    lines.append(_row("**total**", plan["total"]))
    tokenizers = plan["assumptions"].get("tokenizer") or {}
    if tokenizers:
        lines += ["", "tokens counted with: " + ", ".join(sorted(set(tokenizers.values())))]
    if plan["assumptions"].get("claims_source"):
        rate = plan["assumptions"]["claims_per_sentence"]["expected"]
        lines.append(f"claims per sentence: {rate:.2f} ({plan['assumptions']['claims_source']})")
    return "\n".join(lines)
