"""Building blocks of the NonExistentRefusal generators (HalluLens 3.3): name sources,
existence checkers, places and prompt templates."""
