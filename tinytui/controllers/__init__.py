"""The app's controllers: each owns one part of what the user can do, and its state.

The app holds one of each (app.steps, app.edits, app.experiments, app.learning, app.recording) and
runs them from the action table (tinytui/actions.py). A controller changes the session only through
host.apply(), so every change is drawn, recorded and undoable the same way; modes the screen shows
(the backward walk, the gradient overlay) live in the session, not here.
"""
