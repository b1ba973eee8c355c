"""Offline PreciseWikiQA question writer (templates on the reference's wording) and the usability checks
shared with LLM-written questions; the CLI path `--question-writer offline` on the offline corpus."""

import hashlib
import random
from pathlib import Path

import datasets
import pytest

from hallubench.cli import main
from hallubench_generators.common.offline_questions import pick_question, write_questions
from hallubench_generators.common.question_checks import (
    answer_in_reference,
    normalize,
    rejection_reason,
    repeats_question,
    unresolved_reference,
)


def _only(title: str, reference: str) -> tuple[str, str, str]:
    (written,) = write_questions(title, reference)
    return written.question, written.answer, written.kind


@pytest.mark.parametrize("title, reference, expected", [
    ("Vega", "Vega is the brightest star in the northern constellation of Lyra. It is close to the Sun.",
     ("What is the name of the brightest star in the northern constellation of Lyra?", "Vega", "title")),
    ("Herbivore", "A herbivore is an animal anatomically and physiologically adapted to eating plant material.",
     ("What is the term for an animal anatomically and physiologically adapted to eating plant material?",
      "herbivore", "title")),
    ("Charles the Fat", "Charles the Fat was the emperor of the Carolingian Empire from 881 to 887.",
     ("What is the name of the emperor of the Carolingian Empire from 881 to 887?", "Charles the Fat", "title")),
    ("2001: A Space Odyssey", "2001: A Space Odyssey is a 1968 epic science fiction film directed by Stanley Kubrick.",
     ("What is the name of the 1968 epic science fiction film directed by Stanley Kubrick?",
      "2001: A Space Odyssey", "title")),
    ("Scandium", "Scandium is a chemical element. It was discovered in 1879 by spectral analysis.",
     ("In what year was Scandium discovered?", "1879", "year")),
    ("Sokoto Caliphate", ("The Sokoto Caliphate was an Islamic state in West Africa. It was founded by Usman dan "
                          "Fodio in 1804 during the Fulani jihads."),
     ("In what year was the Sokoto Caliphate founded by Usman dan Fodio?", "1804", "year")),
    ("Hadrian", "Hadrian was Roman emperor from 117 to 138. He was born in Italica, near modern Seville.",
     ("Where was Hadrian born?", "Italica", "place")),
])
def test_templates_turn_the_reference_wording_into_a_question(title, reference, expected):
    """Each template yields the expected question, and its answer is a literal span of the reference."""
    question, answer, kind = _only(title, reference)
    assert (question, answer, kind) == expected
    assert answer in reference


@pytest.mark.parametrize("title, reference, why", [
    ("Leni Riefenstahl", "Leni Riefenstahl was a German filmmaker, photographer, and actress.",
     "an 'a' definition without a number or superlative does not single the page out"),
    ("Boot", "A boot is a type of footwear.", "a short 'a' definition of a term is ambiguous"),
    ("Philosophy of mathematics", ("Philosophy of mathematics is the branch of philosophy that deals with the "
                                   "nature of mathematics."), "the question would contain the answer's words"),
    ("Decorative arts", "The decorative arts are arts or crafts whose aim is the design and manufacture of objects.",
     "the first copula is not followed by a definition"),
    ("Sun Wukong", "Sun Wukong is a literary figure best known as one of the main characters in Journey to the West.",
     "'one of' is not a single answer"),
    ("Duck", "Duck is the common name for numerous species of waterfowl in the family Anatidae.",
     "'What is the name of the common name ...' is not a question"),
    ("Gold", "Metals conduct heat. It was first used in 3000 BC.", "a pronoun with no page subject to stand for"),
])
def test_references_without_a_sound_template_question_give_none(title, reference, why):
    """The writer declines rather than write an ambiguous, leaking or unresolvable question."""
    assert write_questions(title, reference) == [], why


def test_pick_question_is_seeded():
    """The same rng seed picks the same question when a reference supports several."""
    reference = ("Metallica is the American heavy metal band that recorded Master of Puppets. "
                 "It was formed in Los Angeles in 1981 by James Hetfield and Lars Ulrich.")
    assert len(write_questions("Metallica", reference)) == 2
    picks = {pick_question("Metallica", reference, random.Random(f"{seed}:x")).kind for seed in range(20)}
    assert picks == {"title", "year"}
    assert pick_question("Metallica", reference, random.Random("3:x")) == pick_question("Metallica", reference,
                                                                                         random.Random("3:x"))


@pytest.mark.parametrize("question, unresolved", [
    ("What is the subject of this excerpt?", True),
    ("According to the text, when did the war end?", True),
    ("What is the meaning of Revolution in your context?", True),
    ("When was it built?", True),
    ("What is this city famous for?", True),
    ("What is its capital?", True),
    ("In what year did Marie Curie receive her second Nobel Prize?", False),
    ("What is the name of the South Korean politician who served until his resignation in 1960?", False),
    ("Which chemical element has atomic number 21?", False),
])
def test_self_contained_questions(question, unresolved):
    """Questions leaning on the unseen reference or on a pronoun without antecedent are caught."""
    assert unresolved_reference(question) is unresolved


def test_answer_checks():
    """Answers are spans (or close matches) of the reference and not the question's own words."""
    reference = "As of the 2016 census, the population of Shiraz was 1,565,572 people."
    assert answer_in_reference("1565572", reference) and answer_in_reference("Shiraz's population", reference)
    assert not answer_in_reference("Tehran", reference)
    assert repeats_question("What is a cult?", "A cult") and repeats_question("What are herbivores?", "herbivore")
    assert not repeats_question("What is the chemical symbol of tin?", "Sn")
    assert normalize("Ångström, 1,000") == "angstrom 1000"
    assert rejection_reason("What is the chemical formula for Scandium?", "scandium", "Scandium", "Scandium (Sc)") \
        == "answer_repeats_question"
    assert rejection_reason("Who directed it?", "Kubrick", "2001", "Kubrick directed it.") == "not_self_contained"


def test_every_question_on_a_corpus_sample_is_a_literal_span_and_self_contained():
    """On 400 offline Vital Articles leads, every written question passes the checks and its answer is a
    literal span of the lead that the question does not contain."""
    from hallubench_generators.common.articles import load_articles

    articles = sorted(load_articles("wiki-offline").articles, key=lambda a: a.title)
    random.Random(0).shuffle(articles)
    written = [(a, q) for a in articles[:400] for q in write_questions(a.title, a.markdown)]
    assert len(written) > 100
    for article, q in written:
        assert q.answer in article.markdown and f" {normalize(q.answer)} " not in f" {normalize(q.question)} "
        assert rejection_reason(q.question, q.answer, article.title, article.markdown) is None


def _generate(out: Path, seed: int, *extra: str) -> int:
    return main(["generate", "precisewikiqa", "--source", "wiki-offline", "--question-writer", "offline",
                 "--n", "12", "--seed", str(seed), "--out", str(out), *extra])


def _digest(folder: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted((folder / "test").glob("*.arrow")))).hexdigest()


def test_offline_writer_cli_needs_no_generator_and_is_deterministic(tmp_path):
    """`--question-writer offline` writes a set without any model, identical for the same seed, different for
    another; the card says it is an offline stand-in, gives the real reference lengths and why ids are null."""
    assert _generate(tmp_path / "a", 0) == 0
    assert _generate(tmp_path / "b", 0) == 0
    assert _generate(tmp_path / "c", 1) == 0
    assert _digest(tmp_path / "a") == _digest(tmp_path / "b") != _digest(tmp_path / "c")
    test = datasets.load_from_disk(str(tmp_path / "a"))["test"]
    assert len(test) == 12 and all(row["answer"] in row["reference"] for row in test)
    assert set(test["difficulty"]) == {None} and set(test["pageid"]) == {None}
    card = (tmp_path / "a" / "README.md").read_text()
    assert "offline stand-in" in card and "question writer: offline templates" in card
    assert "references in this set:" in card and "shorter than the chunk minimum" in card
    assert "WikiRank's files are not available offline" in card and "`pageid` and `revid` are null" in card
    assert "Questions per template: title:" in card and "no_template_question:" in card


@pytest.mark.parametrize("args, message", [
    (["--question-writer", "offline", "--generator", "openai:base_url=http://127.0.0.1:9/v1,model=m"], "not used with"),
    ([], "--generator SPEC is required"),
])
def test_writer_and_generator_options_must_agree(tmp_path, capsys, args, message):
    """The offline writer takes no generator; the LLM writer needs one; either mistake is a one-line error."""
    assert main(["generate", "precisewikiqa", "--source", "wiki-offline", "--n", "3", *args,
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
    assert not (tmp_path / "o").exists()
