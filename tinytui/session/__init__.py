"""The debugger's state without any UI: the undo history, the switches, the modes, and the events a
change emits. Imports the model; never Textual."""
