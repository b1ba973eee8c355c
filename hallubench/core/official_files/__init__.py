"""Readers of official benchmark data files, shared by generators and the lm-eval task loaders."""
