"""The Grid: a labelled matrix with a cell cursor, shading, change marks and an in-place editor."""
