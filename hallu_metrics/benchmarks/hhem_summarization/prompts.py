"""The HHEM leaderboard's summarisation prompt (HalluLens section 4.1), sent to the model under test. An LLM judge
is asked the shared 1-5 faithfulness rubric (``hallu_metrics.rubric.prompts``)."""

# The leaderboard's prompt structure (a chat assistant told to stick to the passage, asked for a concise
# summary covering the core information, then the passage), in this project's words.
PROMPT = (
    "You are a chat assistant that answers only from the data it is given. Use nothing but the information in "
    "the passage below.\nWrite a concise summary of the passage that covers its key information.\n\n"
    "Passage:\n{source}"
)
