"""Dynamic test-set generators: each materialises a fresh Hugging Face dataset with a card."""
