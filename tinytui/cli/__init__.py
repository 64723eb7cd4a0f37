"""The `tinytui` command line: its options, the setup they describe, and one module per command.
The only package that turns arguments into a session or an app."""
