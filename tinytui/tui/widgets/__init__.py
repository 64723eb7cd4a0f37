"""The app's widgets. Each draws from a View (tinytui.present.view) and computes no model values."""
