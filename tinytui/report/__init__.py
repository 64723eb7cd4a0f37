"""A step as labelled tables of formatted numbers, for `tinytui print`, the transcript and handouts,
and their rendering as plain text, Rich tables or Markdown. Imports the model; never Textual."""
