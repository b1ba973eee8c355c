"""``hallubench new-benchmark``: every piece of a working benchmark written and registered at once, so that the
contract tests pass and the contributor edits content, not wiring (docs/design.md, "Adding a benchmark"). Paths and
import paths in ``layout``, templates in ``templates/``, insertions into existing files in ``edits``."""
