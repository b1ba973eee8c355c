"""Wikipedia article sources for the HalluLens generators."""

from generators.sources.articles import Article, load_articles, SOURCE_HELP

__all__ = ["Article", "load_articles", "SOURCE_HELP"]
