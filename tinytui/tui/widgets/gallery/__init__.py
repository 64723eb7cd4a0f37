"""The gallery's widget and its pages: the run retold as paintings, artists and filters."""
