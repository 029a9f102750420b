"""The expensive half: per case retrieve, answer, judge, verify; cached, resumable, shardable."""
