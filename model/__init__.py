"""The chapter's transformer in pure numpy: the forward core at the top, the rest in subpackages.

The core: config (a model's shape), names (one name per tensor and parameter), params (immutable
weights), ops (the forward's small functions), switches, trace (run() and the Trace it returns), stages
and panels (the stage table and what each stage shows), step_path (the stepper's path through the
blocks), diff, count and checks (the one validator of typed values). Subpackages: backward, why, texts,
analysis, io, training, generation (sampling, the KV cache, continuing a prompt). Nothing here imports
textual, rich or any part of the app.
"""
