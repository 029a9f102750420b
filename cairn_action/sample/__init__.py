"""The Halcyon Provisions sample corpus: a fictional food wholesaler's documents, generated from a seed."""

from pathlib import Path

SAMPLE_INDEX = Path(__file__).parent / "index"
"""The sample corpus's chunk and BM25 index-cache entries for the default chunking, prebuilt
(`scripts/build_sample_index.py`) and shipped in the package: the seed of `IndexCache`, so that the first
`cairn eval` of the sample does not build them (about 0.1 s of chunking and 0.25 s of bm25s and scipy)."""
