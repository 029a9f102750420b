"""Cairn: gate every change to a retrieval-augmented QA system on what it did to each answer."""

__version__ = "0.1.0"
