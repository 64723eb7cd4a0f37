"""The Textual app: the action table, the controllers that act on the session, the screens and the
widgets that draw what tinytui.present describes."""
