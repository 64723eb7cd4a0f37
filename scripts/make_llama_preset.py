"""Write model/presets/chapter17-llama.json: the chapter's vocabulary, prompt and target in a block of the
Llama family at hand scale (d 4, RMSNorm with a gain, rotary positions, 4 query heads of 2 over 2
key/value heads, SwiGLU of 4 units, 2 blocks, the unembedding tied to E), its weights drawn as `tinytui
new --arch llama` draws them (seed 17) and rounded to quarters so that every product can be checked by
hand. Running it again gives the same file; it never overwrites one.

    .venv/bin/python scripts/make_llama_preset.py -o model/presets/chapter17-llama.json
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace

from tinytui.model import architectures
from tinytui.model.io.document import ModelFile
from tinytui.model.io.model_file import load, save
from tinytui.model.io.presets import presets
from tinytui.model.params import Params
from tinytui.model.training.seeded_model import neutral_dims

SEED = 17
ABOUT = (
    "The chapter's sentence in a Llama-family model small enough to check by hand: RMSNorm (no mean, a "
    "gain), rotary positions (q and k turned by position, nothing added to x), 4 query heads reading 2 "
    "key/value heads, and a gated feed-forward, SiLU(x W_gate) ⊙ x W_up, then W_down. Its weights are "
    "seeded random numbers rounded to quarters: untrained, so its predictions mean nothing yet."
)


def model() -> ModelFile:
    chapter = load(presets()["chapter17"])
    shape = replace(chapter.cfg, dims=neutral_dims(4), d_model=4, n_heads=4, d_head=2, d_ff=4, n_blocks=2)
    cfg = architectures.configured(shape, "llama", n_kv_heads=2)
    params = Params(cfg, architectures.hand_scale(architectures.seeded_arrays(cfg, SEED)))
    return ModelFile("chapter17-llama", ABOUT, params, chapter.prompt, chapter.target)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", required=True, help="the model file to write (never overwritten)")
    out = p.parse_args().output
    if os.path.lexists(out):
        print(f"{out} exists; it is never overwritten (remove it first)", file=sys.stderr)
        return 2
    save(model(), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
