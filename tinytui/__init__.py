"""tinytui: a terminal step-through debugger for a transformer small enough to check by hand."""

__version__ = "0.1.0"
