"""Files in and out: JSON model files, safetensors weights, GPT-2 and Llama-family checkpoint folders and
their tokenizers, the presets, bounded reads and atomic writes. Imports the forward core; no UI."""
