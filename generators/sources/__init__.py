"""Wikipedia article sources for the HalluLens generators."""

from hallubench_generators.sources.articles import SOURCE_HELP, Article, load_articles

__all__ = ["Article", "load_articles", "SOURCE_HELP"]
