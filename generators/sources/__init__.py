"""Wikipedia article sources for the HalluLens generators."""

from generators.sources.articles import SOURCE_HELP, Article, load_articles

__all__ = ["Article", "load_articles", "SOURCE_HELP"]
