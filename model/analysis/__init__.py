"""Readings of a prediction beyond one step: each head's circuits, direct logit attribution, the
logit lens and activation patching. Imports the forward core; no UI."""
