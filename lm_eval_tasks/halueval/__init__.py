"""HaluEval recognition tasks (Li et al., 2023) and their data-loading hook."""
