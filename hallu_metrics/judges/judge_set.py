"""The judges of one run, by role (``judge``, ``judge_claims``, ...): built once, sharing one call
cache, closed together."""

from __future__ import annotations

from collections.abc import Mapping

from hallu_metrics.judges.base import Judge
from hallu_metrics.judges.kinds import make_judge, public_spec
from hallubench.core.backends import CallCache
from hallubench.core.backends.budget import Budget


class JudgeSet:
    """``get(role)`` gives the judge for a role, falling back to the ``judge`` role; one judge per
    distinct spec, so two roles naming the same model share its concurrency pool and cache. ``settings`` are
    the run's other settings (lm-eval ``--metadata``, ``hallubench score`` options such as ``knowledge``) for
    judging chains that need more than judges."""

    def __init__(
        self,
        specs: Mapping[str, str],
        cache: CallCache | None = None,
        retry_unparseable: bool = False,
        settings: Mapping[str, object] | None = None,
        budget: Budget | None = None,
    ):
        if "judge" not in specs:
            raise ValueError("a JudgeSet needs the 'judge' role")
        self.specs = dict(specs)
        self.budget = budget  # the run's caps, shared by every judge's client (``hallubench.core.backends.budget``)
        self.retry_unparseable = retry_unparseable
        self.settings = dict(settings or {})
        self._cache = cache
        self._by_spec: dict[str, Judge] = {}

    def _cache_once(self) -> CallCache:
        if self._cache is None:
            self._cache = CallCache()
        return self._cache

    def get(self, role: str = "judge") -> Judge:
        spec = self.specs.get(role) or self.specs["judge"]
        if spec not in self._by_spec:
            judge = make_judge(spec, self._cache_once(), self.retry_unparseable)
            client = getattr(judge, "client", None)
            if client is not None:
                client.budget = self.budget
            self._by_spec[spec] = judge
        return self._by_spec[spec]

    def use(self, spec: str, judge: Judge) -> Judge:
        """Serve ``spec`` with an already built judge (a test double, or a scorer built in code rather than from
        a spec string); returns it."""
        self._by_spec[spec] = judge
        return judge

    def built(self, spec: str) -> Judge | None:
        """The judge already serving ``spec``, if any."""
        return self._by_spec.get(spec)

    def cached(self) -> CallCache:
        """The call cache this set's judges share (opened on first use)."""
        return self._cache_once()

    def public_specs(self) -> dict[str, str]:
        """Role -> public spec (no secrets), without building any judge."""
        return {role: public_spec(spec) for role, spec in self.specs.items()}

    def report(self) -> dict[str, dict[str, int]]:
        return {judge.spec: judge.report() for judge in self._by_spec.values()}

    def close(self) -> None:
        for judge in self._by_spec.values():
            judge.close()
        if self._cache is not None:
            self._cache.close()
