"""The app's screens: the main screen, help, pickers, confirmation, saving, the gallery, the parameter
browser, the log of notices and the too-small cover."""
