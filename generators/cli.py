"""``hallubench generate NAME ...``: shared options, then the named generator."""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path

from generators import (
    faithfulness,
    generatedentities,
    halueval,
    longwiki,
    mixedentities,
    precisewikiqa,
    wildhallucinations,
)
from generators.protocol import Generator, features_for
from generators.publishing import check_output_dir, push_test_set, save_test_set
from hallubench.backends import CallCache, ModelClient, backend_spec, make_client
from hallubench.provenance import file_checksum, prompts_hash, software

GENERATORS: dict[str, tuple[Generator, str]] = {
    "precisewikiqa": (precisewikiqa, "Generate a PreciseWikiQA test set (HalluLens 3.1)"),
    "longwiki": (longwiki, "Generate a LongWiki prompt set (HalluLens 3.2)"),
    "halueval": (halueval, "Generate HaluEval qa/dialogue/summarization samples (sampling-then-filtering)"),
    "mixedentities": (mixedentities, "Generate a MixedEntities test set (HalluLens 3.3)"),
    "generatedentities": (generatedentities, "Generate a GeneratedEntities test set (HalluLens 3.3)"),
    "faithfulness": (faithfulness, "Generate a faithfulness-scorer set: gold, intrinsic, extrinsic, progression"),
    "wildhallucinations": (
        wildhallucinations,
        "Generate a WildHallucinations entity set (Zhao et al., 2024, section 2)",
    ),
}


def add_parsers(subparsers) -> None:
    generate = subparsers.add_parser("generate", help="materialise a fresh test set as a Hugging Face dataset")
    names = generate.add_subparsers(dest="generator_name", required=True, metavar="NAME")
    for name, (module, help_text) in GENERATORS.items():
        parser = names.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(parser)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--out", type=Path, required=True, help="output folder (save_to_disk + README.md card)")
        parser.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
        parser.add_argument("--push-to-hub", metavar="REPO_ID", help="also publish dataset + card to the Hub")
        parser.add_argument("--private", action="store_true", help="with --push-to-hub: create a private repo")
        parser.add_argument(
            "--cache", type=Path, help="SQLite call cache (default $HALLUBENCH_CACHE or ~/.cache/hallubench)"
        )
        parser.set_defaults(handler=run)


def open_clients(module, args: argparse.Namespace) -> ModelClient | list[ModelClient] | None:
    """Clients for the backend spec(s) in the argument named by the module's ``CLIENT_OPTION``
    (default ``generator``): one client for one spec, a list for a list (a spec given twice is one
    client, so a local model loads once), None for no option."""
    option = getattr(module, "CLIENT_OPTION", "generator")
    if option is None:
        return None
    specs = getattr(args, option)
    cache = CallCache(args.cache)
    if isinstance(specs, list):
        made: dict[str, ModelClient] = {}
        for spec in specs:
            if spec not in made:
                made[spec] = make_client(backend_spec(spec), cache)
        return [made[spec] for spec in specs]
    return make_client(backend_spec(specs), cache)


_INPUT_OPTIONS = ("source", "wikirank_titles", "wikirank_scores", "conversations", "knowledge", "outside")


def reproducibility(module: Generator, args: argparse.Namespace) -> str:
    """The card section that lets a set be regenerated: software versions and git commit, the hash of the
    generator module (its prompts and rules live in it), the command's options (specs without secrets) and the
    sha256 of every local input file."""
    lines = [f"- {name}: {version}" for name, version in software().items()]
    module_hash = prompts_hash([inspect.getsource(module)])
    lines.append(f"- generator prompts and rules: {module_hash} (hash of {module.__name__})")
    local = ("handler", "push_to_hub", "private", "overwrite", "out", "cache")  # where it ran, not what it made
    options = {k: v for k, v in vars(args).items() if k not in local}
    lines.append(f"- options: `{json.dumps(options, default=str, sort_keys=True)}`")
    for name in _INPUT_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, (str, Path)) and Path(value).is_file():
            lines.append(f"- {name} {value}: {file_checksum(value)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    module, _ = GENERATORS[args.generator_name]
    features = features_for(module, f"{args.generator_name}_{getattr(args, 'task', '')}")
    check_output_dir(args.out, args.overwrite)
    clients = open_clients(module, args)
    try:
        rows, card = module.run(args, clients)
    finally:
        for client in dict.fromkeys(clients if isinstance(clients, list) else filter(None, [clients])):
            client.report()
    card.sections["Reproducibility"] = reproducibility(module, args)
    save_test_set(rows, features, args.out, card, args.overwrite)
    if args.push_to_hub:
        push_test_set(args.out, args.push_to_hub, args.private)
    return 0
