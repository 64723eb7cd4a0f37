"""Changing weights by gradient descent: one step or k, training on a corpus, and new seeded models.
Imports the forward core, the backward pass and io; no UI."""
