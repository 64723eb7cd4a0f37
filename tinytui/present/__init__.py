"""What the app's tables and panes show, as plain data read off a View (cells, labels, marks, windows).
Imports the session and the model; never Textual, so the widgets draw and compute nothing."""
