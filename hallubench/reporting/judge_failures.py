"""Why judge calls failed, said once per endpoint and cause: a dead endpoint, a refused key (naming the environment
variable it was read from), rate limiting, timeouts, other HTTP errors. Read from the (redacted) error texts that
failed verdicts keep, so a re-scored samples log explains its failures too."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from hallubench.core.errors import HallubenchError
from hallubench.core.specs import parse_spec

_URL = r"(?P<url>https?://[^\s,;()]+)"
_UNREACHABLE = "unreachable: nothing answers there (is the server running?)"
_CAUSES = (  # (pattern, cause); the first that matches names the failure
    (re.compile(rf"endpoints? {_URL}[^:]* unreachable"), _UNREACHABLE),
    (re.compile(rf"Connect\w*\b[^\n]*? from {_URL}"), _UNREACHABLE),
    (re.compile(rf"HTTP (?P<code>401|403) from {_URL}"),
     "authentication refused (HTTP {code}): check the key in ${key}"),
    (re.compile(rf"HTTP 429 from {_URL}"),
     "rate-limited (HTTP 429) on every retry: lower concurrency= or raise max_retries= / backoff="),
    (re.compile(rf"(?:Read|Write|Pool)Timeout from {_URL}"),
     "no complete reply within timeout={timeout} s: raise timeout= on the judge spec (for a slow server: "
     "concurrency=1,timeout=600)"),
    (re.compile(rf"over (?P<limit>\d+) bytes from {_URL}"),
     "reply larger than max_reply_bytes={limit}: raise max_reply_bytes= on the judge spec if such replies are "
     "expected"),
    (re.compile(rf"HTTP (?P<code>\d{{3}}) from {_URL}"), "HTTP {code}"),
)
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
DEFAULT_TIMEOUT = 120.0  # seconds per attempt of an openai: judge (hallubench.core.backends.openai_http)


def _spec_value(url: str, judge_specs: Iterable[str], key: str, default: str) -> str:
    """A value (``api_key_env``, ``timeout``) of the judge spec serving ``url``, or its default."""
    for text in judge_specs:
        try:
            spec = parse_spec(text, ("openai",))
        except HallubenchError:  # another kind of judge (rule, hhem:, hf:): no key
            continue
        if any(url.startswith(base.strip().rstrip("/")) for base in str(spec.args.get("base_url", "")).split("|")):
            return str(spec.args.get(key, default))
    return default


def failure_causes(errors: Iterable[str], judge_specs: Mapping[str, str]) -> list[str]:
    """One line per (endpoint, cause), most frequent first: ``N judge calls to URL failed: CAUSE``."""
    counted: Counter[tuple[str, str]] = Counter()
    for error in errors:
        for pattern, cause in _CAUSES:
            found = pattern.search(error)
            if found:
                url = found["url"].rstrip(":.").removesuffix("/chat/completions")
                specs = judge_specs.values()
                fields = {"code": found.groupdict().get("code"), "limit": found.groupdict().get("limit"),
                          "key": _spec_value(url, specs, "api_key_env", DEFAULT_KEY_ENV),
                          "timeout": _spec_value(url, specs, "timeout", f"{DEFAULT_TIMEOUT:g}")}
                counted[(url, cause.format(**fields))] += 1
                break
        else:
            counted[("", (error.strip().splitlines() or ["no error text"])[0][:160])] += 1
    return [f"{n} judge call{'s' if n > 1 else ''}{f' to {url}' if url else ''} failed: {cause}"
            for (url, cause), n in counted.most_common()]
