"""The Halcyon Provisions sample corpus: a fictional food wholesaler's documents, generated from a seed."""
