"""The ``inspect`` judge kind: an LLM judge whose model is an Inspect model role (``-T judge=inspect`` with
``--model-role grader=MODEL``; ``inspect:role=NAME`` names another role). Its calls go through Inspect's model API
(``get_model(role=...)``, so any provider Inspect supports can judge) and through hallubench's ``ModelClient`` in
front of it: the same call cache (keyed by the role's model), in-flight de-duplication, call counting, and the
checks' prompts, readers and reminder turn (``LLMJudge``). It judges only inside an Inspect eval, where the role is
bound; ``hallubench score`` reuses its verdicts from the log, and re-judges with another ``--judge``."""

from __future__ import annotations

import time
from collections.abc import Sequence

from hallu_metrics.judges.kinds import JUDGE_KINDS
from hallu_metrics.judges.llm import LLMJudge
from hallubench.core.backends import CallCache, ChatRequest, ModelClient
from hallubench.core.backends.base import Completion, Usage
from hallubench.core.errors import HallubenchError
from hallubench.core.specs import check_keys, parse_spec

KIND = "inspect"
DEFAULT_ROLE = "grader"


class InspectRoleBackend:
    """The model an Inspect role is bound to, answering one chat request at a time on the eval's event loop."""

    def __init__(self, role: str):
        from inspect_ai.model import get_model

        try:
            self.model = get_model(role=role, required=True)
        except Exception as exc:  # no role bound: outside an Inspect eval, or no --model-role given
            raise HallubenchError(
                f"judge {KIND}:role={role} needs Inspect's model role {role!r} (inspect eval ... --model-role "
                f"{role}=MODEL); outside an Inspect eval pass another judge (--judge SPEC): {exc}") from exc
        self.identity = f"{KIND}:{self.model}"

    async def agenerate(self, request: ChatRequest) -> Completion:
        from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig

        kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
        messages = [kinds[m["role"]](content=m["content"]) for m in request.message_dicts()]
        config = GenerateConfig(temperature=request.temperature, top_p=request.top_p, max_tokens=request.max_tokens,
                                seed=request.seed)
        start = time.perf_counter()
        try:
            output = await self.model.generate(messages, config=config)
        except Exception as exc:  # Inspect retried already; a failed call is a failed verdict, never cached
            return Completion(None, error=f"{type(exc).__name__}: {exc}", seconds=time.perf_counter() - start)
        usage = output.usage
        return Completion(output.completion, usage=Usage(usage.input_tokens, usage.output_tokens) if usage else None,
                          seconds=time.perf_counter() - start)

    def complete_many(self, requests: Sequence[ChatRequest], on_result) -> None:
        raise HallubenchError(f"the {KIND} judge answers only inside an Inspect eval")


class InspectRoleClient(ModelClient):
    """``ModelClient`` whose calls are awaited on the running loop (Inspect's), not sent from worker threads."""

    async def _dispatch(self, request: ChatRequest, key: str) -> Completion:
        return self._store(key, await self.backend.agenerate(request))  # type: ignore[attr-defined]


def inspect_judge(spec: str, cache: CallCache, retry_unparseable: bool = False) -> LLMJudge:
    """The judge of an ``inspect[:role=NAME]`` spec (built by ``JudgeSet`` like every other kind)."""
    parsed = parse_spec(spec, (KIND,))
    check_keys(KIND, parsed.args, {"role"}, ())
    role = str(parsed.args.get("role", DEFAULT_ROLE))
    backend = InspectRoleBackend(role)
    return LLMJudge(InspectRoleClient(backend, cache, f"{KIND}:role={role},model={backend.model}"),
                    retry_unparseable=retry_unparseable)


JUDGE_KINDS.setdefault(KIND, inspect_judge)  # judge specs may name it from the moment Inspect's layer is imported
