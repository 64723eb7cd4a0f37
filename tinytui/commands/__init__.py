"""Subcommands of `tinytui` that live in their own modules (cli.py wires each in with a line or two)."""
