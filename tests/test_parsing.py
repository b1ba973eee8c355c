"""Judge-reply parsers read messy real-world replies and refuse to guess on unreadable ones."""

import pytest

from hallu_metrics.judges.parsing import parse_json_bool, parse_label

LABELS = ("CORRECT", "INCORRECT", "UNVERIFIABLE")


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"is_abstaining": true}', True),
        ('  ```json\n{"is_abstaining": False}\n```  ', False),
        ("Sure! Here you go: {'is_abstaining': true} Hope that helps.", True),
        ('{"IS_ABSTAINING": "false"}', False),
        ("is_abstaining: TRUE", True),
        ("The chatbot clearly abstains.", None),
        ('{"is_abstaining": true} ... actually {"is_abstaining": false}', None),
        ('{"is_abstaining": "maybe"}', None),
        ("", None),
    ],
)
def test_parse_json_bool(text, expected):
    assert parse_json_bool(text, "is_abstaining") is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"verdict": "incorrect"}', "INCORRECT"),
        ('```\n{"verdict": " Unverifiable "}\n```', "UNVERIFIABLE"),
        ("The answer is CORRECT.", "CORRECT"),
        ("incorrect", "INCORRECT"),
        ("It is not CORRECT; it is INCORRECT.", None),  # two different labels, no JSON: unreadable
        ("Yes", None),
        ('{"verdict": "right"}', None),
    ],
)
def test_parse_label(text, expected):
    assert parse_label(text, LABELS) == expected
