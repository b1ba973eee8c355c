"""WildHallucinations' own prompt text (Zhao et al., 2024): the question each model is asked about an entity, which
is also the conversation's question in the optional refusal check. Every check the chain asks, with its prompt, is
in the shared long-form layer (hallu_metrics.longform): ``refusal.KNOWLEDGEABLE``, ``atomic_facts.ATOMIC_FACTS``,
``verification.VERIFICATION``."""

QUESTION = "In a paragraph, could you tell me what you know about {entity}?"  # section 3, "Inference"
