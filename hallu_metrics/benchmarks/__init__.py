"""The benchmarks, one package each (declaration, prompts, checks, chain, metrics, data, labels); each imports
only the shared layers beside this folder, never another benchmark."""
