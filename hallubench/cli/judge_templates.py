"""``hallubench judge-templates``: the checks an LLM judge can be asked, the fields a template file may
insert for each, and (``--check NAME``) the built-in prompt as a template file to start from."""

from __future__ import annotations

import argparse

import yaml

from hallubench.core.errors import HallubenchError


def judge_templates(args: argparse.Namespace) -> int:
    import hallu_metrics.registry  # noqa: F401  (builds every benchmark's checks)
    from hallu_metrics.judges.templates import builtin_template
    from hallu_metrics.registry import ALL_CHECKS

    checks = {}
    for check in ALL_CHECKS:
        if check.messages is not None:
            checks.setdefault(check.name, check)
    if args.check is None:
        print("check | defined in | fields a template may insert")
        for name, check in sorted(checks.items()):
            print(f"{name} | {check.messages.__module__} | {', '.join('{' + f + '}' for f in check.fields)}")
        return 0
    if args.check not in checks:
        raise HallubenchError(f"unknown check {args.check!r} (known: {', '.join(sorted(checks))})")
    fields, template = builtin_template(checks[args.check])
    if not template:
        raise HallubenchError(f"{args.check}'s built-in prompt formats its fields ({', '.join(fields)}) itself or "
                              "spans several turns; write the template by hand (docs/design.md, judge templates)")
    print(yaml.dump({args.check: template}, Dumper=_BlockDumper, allow_unicode=True, sort_keys=False), end="")
    return 0


class _BlockDumper(yaml.SafeDumper):
    """Multi-line prompts as YAML block literals, readable and editable as they are sent."""


def _text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|" if "\n" in text else None)


_BlockDumper.add_representer(str, _text)


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    parser = subparsers.add_parser(
        "judge-templates", help="list judge checks and their template fields, or print one built-in prompt as a "
        "template file (for an LLM judge spec's template=PATH)")
    parser.add_argument("--check", help="print this check's built-in prompt as a template file (YAML)")
    parser.set_defaults(handler=judge_templates)
