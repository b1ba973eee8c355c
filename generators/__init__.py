"""Dynamic test-set generators: each materialises a fresh Hugging Face dataset with a card."""

from hallubench.core.moved import install as _keep_old_import_paths

_keep_old_import_paths()
