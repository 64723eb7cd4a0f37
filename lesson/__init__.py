"""The lesson beside the model: the sixteen steps (stages, step_path, panels), what each says
(texts), why each number has its value (why), the backward walk's steps (walk_steps,
walk_stages), the gallery's reading and practice. It reads the numpy model (tinytui.model); the
model never reads it."""
