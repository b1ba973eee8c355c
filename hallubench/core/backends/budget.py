"""Budget caps on a run's judge calls (``--max-calls``, ``--max-cost``): every new call (never a cache hit) is
admitted by the run's one ``Budget`` before it is sent. A call is refused when it would take the run past a cap: the
calls made so far plus this one over ``max_calls``, or the cost so far (each finished call's tokens at its price) plus
the calls in flight and this one, each at its upper bound (prompt characters / ``CHARS_PER_TOKEN`` tokens and
``max_tokens`` of completion), over ``max_cost``. From the first refusal on the run has stopped on budget: every
later call is refused too, so the verdicts so far are kept and the rest stay unjudged (a re-run with a higher cap
resumes from the cache)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Protocol

from hallubench.core.backends.base import ChatRequest, Completion

CHARS_PER_TOKEN = 3  # fewer characters per token than English prose has (about 4): the estimate errs high
STOPPED = "stopped on budget"  # how a refused call's error begins (score and eval count refused items by it)


class Priced(Protocol):
    """A price: USD of a call's prompt and completion tokens (``hallu_metrics.judges.accounting.Price``)."""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float: ...


@dataclass
class Budget:
    """The caps of one run and its running totals; ``price(role, spec)`` prices the calls of a judge role served by
    a spec (None: unpriced, which only ``max_calls`` can cap)."""

    max_calls: int | None = None
    max_cost: float | None = None
    price: Callable[[str | None, str], Priced | None] = field(default=lambda role, spec: None)
    calls: int = 0
    spent: float = 0.0
    reserved: float = 0.0
    stopped: bool = False

    def _bound(self, request: ChatRequest, price: Priced | None) -> float:
        characters = sum(len(content) for _, content in request.messages)
        return price.cost(characters // CHARS_PER_TOKEN + 1, request.max_tokens) if price is not None else 0.0

    def admit(self, request: ChatRequest, role: str | None, spec: str) -> float | None:
        """The call's reserved cost when it may be sent; None when the run has stopped on budget."""
        bound = self._bound(request, self.price(role, spec))
        over_calls = self.max_calls is not None and self.calls + 1 > self.max_calls
        over_cost = self.max_cost is not None and self.spent + self.reserved + bound > self.max_cost
        if self.stopped or over_calls or over_cost:
            self.stopped = True
            return None
        self.calls += 1
        self.reserved += bound
        return bound

    def settle(self, reserved: float, role: str | None, spec: str, completion: Completion) -> None:
        """A call admitted with ``reserved`` finished: its reservation becomes its cost (the bound when the server
        reported no usage)."""
        self.reserved -= reserved
        price, usage = self.price(role, spec), completion.usage
        if price is not None and usage is not None:
            self.spent += price.cost(usage.prompt_tokens, usage.completion_tokens)
        elif completion.ok:
            self.spent += reserved

    def refusal(self) -> str:
        """The error a refused call carries."""
        return f"{STOPPED} ({self.caps()}: {self.calls} calls made, ${self.spent:.4f} spent); not sent"

    def caps(self) -> str:
        """"--max-calls 100, --max-cost 0.5": the caps set."""
        caps = [] if self.max_calls is None else [f"--max-calls {self.max_calls}"]
        return ", ".join(caps + ([] if self.max_cost is None else [f"--max-cost {self.max_cost:g}"]))

    def report(self, failures: Sequence[Sequence[str]]) -> dict[str, object]:
        """For results: the caps, the calls made and their cost, whether the run stopped on them, and of the items
        judged in it (``failures``: each item's failed calls' errors) how many got every verdict."""
        refused = sum(any(error.startswith(STOPPED) for error in errors) for errors in failures)
        return {"max_calls": self.max_calls, "max_cost_usd": self.max_cost, "calls": self.calls,
                "cost_usd": self.spent, "stopped": self.stopped, "items": len(failures),
                "items_judged": len(failures) - refused}


RUN_BUDGET: ContextVar[Budget | None] = ContextVar("hallubench_run_budget", default=None)
"""The budget of a ``hallubench eval`` run, read by each task's judging filter (one budget over all its tasks)."""
