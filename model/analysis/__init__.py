"""Readings of a model beyond one step: each head's circuits, direct logit attribution, and the
gallery's data. Imports the forward core; no UI."""
