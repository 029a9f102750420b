"""The golden set: models, loading and validation, the split, and the sample corpus generator."""
