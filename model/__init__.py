"""The chapter's transformer in pure numpy: the forward core at the top, the rest in subpackages.

The core: config (a model's shape), architectures (the families: the chapter's, GPT-2, Llama), names
(one name per tensor and parameter), params (immutable weights), ops (the small functions of arrays),
switches, forward (the forward pass as formulas, in the chapter's order), trace (run(), the Trace it
returns and the tape that keeps what an edit did not change), diff, count and checks (the one validator
of typed values). Subpackages: backward, analysis, io, training, generation (sampling, the KV cache,
continuing a prompt); presets/ holds the preset model files. The lesson that reads it (stages, texts,
why, practice) is tinytui.lesson; nothing here imports it, nor textual, rich or any part of the app.
"""
