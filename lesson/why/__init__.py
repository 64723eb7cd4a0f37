"""Why this number: where any cell of a trace, a parameter or a gradient comes from (its formula, its
operands and the formula with numbers filled in). Imports the forward core and the backward pass; no UI."""
