"""The app's controllers: each owns one part of what the user can do, and its state."""
