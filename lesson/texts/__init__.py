"""What the app and the printer say about a run: each step's explanation, its facts, its formula as
run, the note after a change. Written from a trace; imports the model, no UI."""
