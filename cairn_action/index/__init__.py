"""Documents on disk → chunks with character offsets → a store; the corpus hash."""
