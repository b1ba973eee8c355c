"""Helpers the generators share: the generator protocol, article sources, publishing, question checks, chunking,
difficulty bins, quota filling."""
