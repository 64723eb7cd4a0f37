"""Files in and out: JSON model files, safetensors weights, GPT-2 checkpoint folders and their BPE,
the presets, bounded reads and atomic writes. Imports the forward core; no UI."""
