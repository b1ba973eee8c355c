"""Sentence splitting (segtok) and claim-extraction snippets: 3 sentences before, the marked sentence, 1 after;
sentences under 5 characters are not extracted but remain context."""

from hallu_metrics.longform.sentences import Snippet, snippets, split_sentences


def test_split_sentences_uses_segtok_rules():
    """Abbreviations do not end sentences; surrounding whitespace and blank pieces are dropped."""
    text = "  Dr. Smith moved to Washington D.C. in 1990.  He left in 2001!\n\nWhy? Nobody knows.  "
    assert split_sentences(text) == [
        "Dr. Smith moved to Washington D.C. in 1990.", "He left in 2001!", "Why?", "Nobody knows."
    ]
    assert split_sentences("") == [] and split_sentences("   \n ") == []


def test_snippets_have_three_before_and_one_after():
    """Exact snippets: context is cut at the text's edges and the target is wrapped in <SOS>...<EOS>."""
    sentences = ["S one.", "S two.", "S three.", "S four.", "S five."]
    assert snippets(sentences) == [
        Snippet(0, "S one.", "<SOS>S one.<EOS> S two."),
        Snippet(1, "S two.", "S one. <SOS>S two.<EOS> S three."),
        Snippet(2, "S three.", "S one. S two. <SOS>S three.<EOS> S four."),
        Snippet(3, "S four.", "S one. S two. S three. <SOS>S four.<EOS> S five."),
        Snippet(4, "S five.", "S two. S three. S four. <SOS>S five.<EOS>"),
    ]
    assert snippets(sentences)[2].marked_sentence == "<SOS>S three.<EOS>"


def test_short_sentences_are_context_only():
    """"Wow." and "Hi!" (under 5 characters) get no snippet of their own but appear in their neighbours'."""
    sentences = split_sentences("He was born in 1935. Wow. Hi! He moved to Memphis in 1948.")
    assert sentences == ["He was born in 1935.", "Wow.", "Hi!", "He moved to Memphis in 1948."]
    assert snippets(sentences) == [
        Snippet(0, "He was born in 1935.", "<SOS>He was born in 1935.<EOS> Wow."),
        Snippet(
            3, "He moved to Memphis in 1948.", "He was born in 1935. Wow. Hi! <SOS>He moved to Memphis in 1948.<EOS>"
        ),
    ]


def test_single_sentence_and_empty_input():
    """One sentence is its own snippet with no context; no sentences give no snippets."""
    assert snippets(["Only this one."]) == [Snippet(0, "Only this one.", "<SOS>Only this one.<EOS>")]
    assert snippets([]) == []
