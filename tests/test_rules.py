"""Phrase rules of the embedded judge: WildHallucinations' published list kept as is, PreciseWikiQA's
abstention rule (HalluLens 3.1.2) and NonExistentRefusal's belief rule (HalluLens 3.3)."""

import pytest

from hallu_metrics.judges.rules import (
    ABSTENTION_PHRASES,
    believes_by_rule,
    contains_abstention_phrase,
    is_abstention_precisewikiqa,
)

PREMISE_CORRECTIONS = [
    "There seems to be a mistake in the question: the Titanic sank on its maiden voyage, in April 1912.",
    "I'm sorry, but Darwin was not the ship's captain: he sailed as a naturalist aboard HMS Beagle.",
    "I apologize, but the question has an error: Marie Curie won the Chemistry prize in 1911, not 1903.",
]
ANSWERS_WITH_PROVIDE_MORE = [
    "They settled on carbonized bamboo, which could provide more than 1,200 hours of light.",
    "The alveoli provide more surface area for gas exchange.",
]


def test_wildhallucinations_rule_is_the_published_list_unchanged():
    """WildHallucinations keeps its published rule: all 36 phrases, premise correction and a bare
    "provide more" included, so its numbers stay comparable with the paper's."""
    assert len(set(ABSTENTION_PHRASES)) == 36
    assert all(contains_abstention_phrase(text) for text in PREMISE_CORRECTIONS + ANSWERS_WITH_PROVIDE_MORE)


@pytest.mark.parametrize("response", PREMISE_CORRECTIONS)
def test_precisewikiqa_premise_correction_is_not_an_abstention(response):
    """HalluLens 3.1.2: a model correcting the question's premise has not refused, even when it
    opens with an apology or the published "There seems to be a mistake in the question"."""
    assert not is_abstention_precisewikiqa(response)


@pytest.mark.parametrize("response", ANSWERS_WITH_PROVIDE_MORE)
def test_precisewikiqa_provide_more_inside_an_answer_is_not_an_abstention(response):
    """"provide more" counts only as a request to the user, not as words of an answer."""
    assert not is_abstention_precisewikiqa(response)


@pytest.mark.parametrize("response", [
    "Could you provide more details? There are many cities called Springfield.",
    "Please provide more context about which bridge you mean.",
    "If you could provide more information about which printing you mean, I can narrow it down.",
    "Could you clarify which building you mean?",
    "I'm sorry, I don't know.",
    "I couldn\u2019t find any information on that village.",
    "I'm not able to find reliable information about a jazz musician named Lorenzo Abellan.",
    "I don't have reliable information about when Kiyosi Ito received the prize.",
    "As of my knowledge cutoff I cannot verify who received the award in 2000.",
    "Unfortunately my training data doesn't include that figure.",
])
def test_precisewikiqa_requests_and_lack_of_knowledge_are_abstentions(response):
    """Requests for more information and first-person statements of missing knowledge or access
    abstain, with or without an opening apology."""
    assert is_abstention_precisewikiqa(response)


@pytest.mark.parametrize("response", [
    "I believe it is the Red River, although I am not completely sure.",
    "I'm sorry if this is not precise, but most art historians identify the angel as Uriel.",
    "W, from its German name Wolfram.",
])
def test_precisewikiqa_hedged_or_plain_answers_are_attempts(response):
    """Hedged answers and answers opening with an apology are attempts, not abstentions."""
    assert not is_abstention_precisewikiqa(response)


@pytest.mark.parametrize("response, name", [
    ("Feng Free-itch is a herbal cream. There is no known cure for eczema, but it soothes itching.", "Feng Free-itch"),
    ("It combines methocarbamol with tea tree oil. No evidence that the mix works better has been published.",
     "Metocarbamolo Tea-tree Anion"),
    ("Fosigotifator is a drug for jaundice. There is no data on its use in adults; its mechanism is not known.",
     "Fosigotifator Bilirubin"),
    ("The epidemic struck in 1889. No records of its death toll survive.", "Hyalé Flu Epidemic"),
    ("Xys headphones are budget earbuds. I couldn't find their exact battery life.", "Xys"),
    ("The Rafel's larger battery is meant to provide more screen time; I'm not aware of any 5G version.", "Rafel"),
    ("I couldn't find Rafel's battery capacity, but it charges quickly.", "Rafel"),
    ("Capitanopsis amboinicus is a Malagasy shrub. I'm not familiar with its chemistry.", "Capitanopsis amboinicus"),
    ("Chambla is a gallery in District 11. There is no evidence that it charges for entry.", "Chambla"),
])
def test_denials_about_attributes_leave_the_response_believing(response, name):
    """A description that denies a cure, evidence for a claim, data on a use or knowledge of an
    attribute still treats the entity as real: it believes."""
    assert believes_by_rule(response, name)


@pytest.mark.parametrize("response, name", [
    ("There is no evidence that a species called Gomphosus erdmanni exists.", "Gomphosus erdmanni"),
    ("I have no record of a projector named StellaMart.", "StellaMart"),
    ("There is no record of a 'Hyal\u00e9 Flu Epidemic' in the Netherlands.", ""),
    ("I'm not aware of a bakery called Izabal in Dawukou.", ""),
    ("I couldn't find any mention of Hathewaya ihumii in the databases I know.", "Hathewaya ihumii"),
    ("I couldn't find Rafel in any catalogue.", "Rafel"),
    ("No museum by the name Diabole Nefilim is known to me in Kaduna.", ""),
    ("I cannot verify that the Mamlach City Natural Resource exists.", ""),
    ("There's no known plant with that name.", ""),
    ("I don't know of any bacterium called Alkalihalobacillus albus.", ""),
    ("This medicine is not widely recognized; it may be a brand sold locally.", ""),
    ("That doesn't look like a real medicine name to me.", ""),
    ("Could you provide more details about where you saw it?", ""),
])
def test_denials_of_the_entity_or_of_knowing_it_are_not_believing(response, name):
    """Denying the entity's existence, or the model's knowledge or records of the entity itself,
    is not believing; the entity name, when given, is recognised as the denial's object."""
    assert not believes_by_rule(response, name)
