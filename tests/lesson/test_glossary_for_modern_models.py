"""The glossary said for a Llama-family model: the positions switch is RoPE's (as the status line names
it), and with grouped-query attention k and v rows belong to the key/value heads."""

from tinytui.lesson.texts.glossary import for_model
from tinytui.model.io.checkpoint import load_model
from tinytui.model.io.presets import resolve
from tinytui.tui.controllers.why_controller import GLOSSARY


def test_a_rotary_grouped_models_glossary_names_its_own_parts(chapter):
    said = dict(for_model(GLOSSARY, load_model(resolve("chapter17-llama")).cfg))
    assert "mask on/off, PE on/off" not in said
    assert said["mask on/off, RoPE on/off"].startswith(
        "the causal mask, the rotary positions (q and k turned)"
    )
    assert said["k0, k1"] == (
        "a head's own dimensions: each query head's q rows and each key/value head's k and v rows have "
        "d_head = 2 of them"
    )
    chapters = dict(for_model(GLOSSARY, chapter.cfg))
    assert chapters["mask on/off, PE on/off"].startswith("the causal mask, the positional encoding")
    assert (
        chapters["k0, k1"] == "a head's own dimensions: each head's q, k and v rows have d_head = 2 of them"
    )
