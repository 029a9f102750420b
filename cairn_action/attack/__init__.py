"""`cairn attack`: adversarial probes generated from the golden set (suite), run through the eval's run
machinery (execute), checked deterministically (checks, score), reported (models, render, io) and gated
probe by probe (compare)."""
