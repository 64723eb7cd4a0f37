"""Modal screens: help, pickers, confirmation, saving, and the parameter browser."""
