"""NonExistentRefusal test-set generators (HalluLens, Bang et al. 2025, section 3.3): ``mixedentities`` (species and
medicines recombined from real names, no LLM) and ``generatedentities`` (businesses, events and product brands
invented by a round robin of models), with their building blocks: name sources (``taxonomy``, ``medicines``,
``places``), existence ``checkers``, the reader of invented-name lists (``names``) and every prompt both generators
send or write into a set (``prompts``)."""
