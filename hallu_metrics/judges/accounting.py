"""Token accounting of a judging run (docs/cost.md): calls, new vs cached, tokens and time per judge role, and their
cost at a price per million input / output tokens. Used by lm-eval's judging filter and by ``hallubench score``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from hallu_metrics.judges.base import Check, Judge, Verdict
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.kinds import public_spec
from hallubench.core.backends.client import CALL_ROLE, CallStats

PER_TOKENS = 1_000_000  # prices are USD per million tokens, as providers list them
ALL_ROLES = "judge"  # a price under this role applies to every role without its own
BATCH_KIND = "openai-batch"
BATCH_DISCOUNT = 0.5  # what OpenAI's (and most providers') Batch API takes off the list price


@dataclass(frozen=True)
class Price:
    """USD per million input (prompt) and output (completion) tokens; ``source`` says where it was given."""

    input: float
    output: float
    source: str

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / PER_TOKENS


def price_for(role: str, spec: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of ``role`` served by ``spec``: the role's own entry, then the spec's, then its model name's, then
    the ``judge`` entry (every role). A Batch API judge (``openai-batch:``) takes a ``batch:MODEL`` entry (the
    provider's batch price) before the others, which it pays less ``BATCH_DISCOUNT``."""
    model = next((part.partition("=")[2] for part in spec.partition(":")[2].split(",") if part.startswith("model=")),
                 None)
    batch = spec.startswith(BATCH_KIND + ":")
    if batch and f"batch:{model}" in prices:
        return prices[f"batch:{model}"]
    for key in (role, spec, model, ALL_ROLES):
        if key is not None and key in prices:
            price = prices[key]
            return Price(price.input * (1 - BATCH_DISCOUNT), price.output * (1 - BATCH_DISCOUNT),
                         f"{price.source}, less the {BATCH_DISCOUNT:.0%} batch discount") if batch else price
    return None


def batch_spec(spec: str) -> str:
    """The Batch API twin of a realtime ``openai:`` spec (``plan`` prices both)."""
    return BATCH_KIND + spec.removeprefix("openai") if spec.startswith("openai:") else spec


class RoleJudge:
    """A judge serving one role: each call it makes is counted under that role (``CALL_ROLE``); every other
    attribute is the judge's own."""

    def __init__(self, role: str, judge: Judge):
        self.role, self.judge = role, judge

    def __getattr__(self, name: str) -> Any:
        return getattr(self.judge, name)

    async def ask(self, check: Check, item: dict) -> Verdict:
        missing = [name for name in check.fields if name not in item]
        if missing:  # a chain and its check's declaration disagree: templates would be validated against a lie
            raise ValueError(f"check {check.name!r}: the item lacks its declared field(s) {', '.join(missing)}")
        token = CALL_ROLE.set(self.role)
        try:
            return await self.judge.ask(check, item)
        finally:
            CALL_ROLE.reset(token)


class AccountedJudgeSet(JudgeSet):
    """A JudgeSet whose judges count calls per role (two roles served by one model still count apart)."""

    def get(self, role: str = "judge") -> Judge:
        return RoleJudge(role, super().get(role))  # type: ignore[return-value]


def _role_stats(judges: JudgeSet | None, role: str, spec: str, first_role_of: Mapping[str, str]) -> CallStats:
    """The calls made for ``role``: per role from an LLM judge's client; a classifier or rule judge, which counts
    no roles, reports under the first role it serves."""
    judge = judges.built(spec) if judges is not None else None
    client = getattr(judge, "client", None)
    if client is not None:
        return client.by_role.get(role, CallStats())
    if judge is None or first_role_of[spec] != role:
        return CallStats()
    counts = judge.report()
    return CallStats(**{f.name: counts[f.name] for f in fields(CallStats) if f.name in counts})


def _entry(stats: CallStats, spec: str | None, price: Price | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"spec": spec, "new": stats.calls, **asdict(stats)}
    entry["calls"] = stats.calls + stats.cached
    entry["cost_usd"] = price.cost(stats.prompt_tokens, stats.completion_tokens) if price is not None else None
    entry["price"] = {"input": price.input, "output": price.output, "source": price.source} if price else None
    return entry


def roles_in_use(judge_roles: Sequence[str], specs: Mapping[str, str]) -> dict[str, str]:
    """Role -> the spec that served it (a role without its own spec is served by ``judge``); none when unjudged."""
    if specs.get("judge", "none") == "none":
        return {}
    return {role: specs.get(role) or specs["judge"] for role in judge_roles}


def accounting(judges: JudgeSet | None, roles: Mapping[str, str], wall_seconds: float,
               prices: Mapping[str, Price] | None = None) -> dict[str, Any]:
    """Per role (``roles``: role -> spec as the run used it) and in total: calls (``new`` and ``cached``), failed,
    tokens of the new calls and of the reused ones, calls of unknown usage, summed call time, and the cost of the new
    calls at ``prices`` (null without a price; a lower bound when some usage is unknown). ``wall_seconds``: the
    judging's wall time."""
    first_role_of: dict[str, str] = {}
    for role, spec in roles.items():
        first_role_of.setdefault(spec, role)
    per_role: dict[str, dict[str, Any]] = {}
    total = CallStats()
    costs: list[float | None] = []
    for role, spec in roles.items():
        stats = _role_stats(judges, role, spec, first_role_of)
        entry = _entry(stats, public_spec(spec), price_for(role, public_spec(spec), prices or {}))
        per_role[role] = entry
        costs.append(entry["cost_usd"])
        for f in fields(CallStats):
            setattr(total, f.name, getattr(total, f.name) + getattr(stats, f.name))
    priced = [c for c in costs if c is not None]
    totals = _entry(total, None, None)
    totals.pop("spec"), totals.pop("price")
    totals["cost_usd"] = sum(priced) if priced else None
    totals["cost_complete"] = bool(priced) and len(priced) == len(costs) and total.usage_unknown == 0
    return {"wall_seconds": wall_seconds, "roles": per_role, "total": totals}
