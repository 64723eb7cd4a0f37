"""The app's widgets. Each one draws from a View (tinytui.widgets.view) and computes no model values."""
