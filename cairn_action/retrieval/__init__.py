"""Retrievers: given a question, a ranked list of chunks."""
