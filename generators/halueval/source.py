"""HaluEval source records: the official file (or folder, or ``official``: the GitHub file) or any JSON-lines /
JSON-array file whose columns ``--source-columns`` maps onto the task's official fields."""

from __future__ import annotations

from hallu_metrics.benchmarks.halueval import TASKS, TaskSpec
from hallubench.core.errors import HallubenchError


def source_fields(spec: TaskSpec) -> tuple[str, ...]:
    """What the generator reads from a source record: the context fields and the right text."""
    return tuple(field for field, _ in spec.context) + (spec.right,)


def parse_source_columns(text: str | None, spec: TaskSpec) -> dict[str, str]:
    """``FIELD=COLUMN,...`` -> {official field: source column}; a field not named reads its own column."""
    fields = source_fields(spec)
    mapping = {field: field for field in fields}
    for item in filter(str.strip, (text or "").split(",")):
        field, equals, column = (part.strip() for part in item.partition("="))
        if not (equals and field and column):
            raise HallubenchError(f"--source-columns: {item.strip()!r} is not FIELD=COLUMN")
        if field not in fields:
            raise HallubenchError(
                f"--source-columns: {field!r} is not a {spec.name} source field (fields: {', '.join(fields)}; "
                f"{spec.hallucinated} is regenerated)"
            )
        mapping[field] = column
    return mapping


def read_source(task: str, source: str, columns: str | None) -> list[dict[str, str]]:
    """Source records with the official field names: an official-format file or folder, ``official``
    (the GitHub file), or any JSON-lines / JSON-array file whose columns ``columns`` maps."""
    from hallubench.core.official_files.halueval import official_file, read_json_records

    spec = TASKS[task]
    mapping = parse_source_columns(columns, spec)
    path = official_file(task, None if source == "official" else source)
    records = read_json_records(path)
    for number, record in enumerate(records, 1):
        for field, column in mapping.items():
            if record.get(column) is None:
                raise HallubenchError(
                    f"{path}: record {number} has no column {column!r} for {field} (it has: {', '.join(record)}); "
                    "map the fields with --source-columns FIELD=COLUMN,..."
                )
    return [{field: str(record[column]) for field, column in mapping.items()} for record in records]
