"""The generator protocol: what every ``hallubench generate NAME`` module provides. Every random choice a generator
makes draws from ``hallubench.core.seeding`` (same seed + same cached model responses = identical dataset)."""

from __future__ import annotations

import argparse
import json
from typing import Any, Protocol

import datasets

from hallubench.core.backends import ChatRequest
from hallubench.core.provenance import prompts_hash
from hallubench_generators.common.publishing import CardInfo


class Generator(Protocol):
    """A test-set generator module.

    ``FEATURES`` are the saved columns (they contain the benchmark's registry columns; a generator that
    writes several benchmarks' sets maps benchmark name -> Features). ``CLIENT_OPTION`` is required, with no
    default: it names the argument holding the backend spec(s) the CLI opens as cached clients, a tuple of such
    names (several model roles), or None for a generator that makes no model calls (rule-only); the CLI refuses a
    module that does not declare it (``cli.client_option``). ``run`` returns the rows and the dataset
    card; the CLI saves both atomically. ``prompts`` gives what the generator sends, for the card's prompt hash: each
    model request rendered on placeholder inputs (``sent``) and the prompt templates it writes into the set; a
    generator without model calls gives its templates, or nothing. ``HELP`` is its line in ``hallubench generate
    --help`` (a string literal: the CLI reads it from the source, without importing the module)."""

    HELP: str
    FEATURES: datasets.Features | dict[str, datasets.Features]
    CLIENT_OPTION: str | tuple[str, ...] | None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace, clients: Any) -> tuple[list[dict[str, Any]], CardInfo]: ...

    def sent_prompts(self) -> dict[str, Any]: ...


def features_for(generator: Generator, benchmark: str | None = None) -> datasets.Features | None:
    """The Features a generator writes (for one benchmark when it writes several)."""
    features = generator.FEATURES
    if isinstance(features, dict) and not isinstance(features, datasets.Features):
        return features.get(benchmark) if benchmark else None
    return features


def sent(request: ChatRequest) -> dict[str, Any]:
    """A request as the card's prompt hash covers it: messages and decoding parameters. The per-item seed is left
    out: it derives from ``--seed``, which the card's options record."""
    return {"messages": [list(message) for message in request.messages], "temperature": request.temperature,
            "top_p": request.top_p, "max_tokens": request.max_tokens, "response_format": request.response_format}


def generator_prompts_hash(generator: Generator) -> str:
    """``sha256:`` + 16 hex digits over what the generator sends (``sent_prompts()``); comments and code layout do not
    count, a prompt word, a worked example or a decoding parameter does."""
    return prompts_hash([json.dumps(generator.sent_prompts(), sort_keys=True, ensure_ascii=True)])
