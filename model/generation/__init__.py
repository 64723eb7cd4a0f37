"""Generating text one token at a time: sampling (temperature, top-k, top-p and a named seeded
generator) in sampling.py, the KV cache and the new position's pass that reuses it in kv_cache.py, and
the loop that appends N tokens in continuation.py. Imports the forward core only; no UI."""
