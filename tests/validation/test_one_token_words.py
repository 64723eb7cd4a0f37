"""A prompt cut down to one token is described as one token (it said "1 tokens, ids 0")."""

from tinytui.cli.options import build_parser
from tinytui.cli.run_setup import setup_from
from tinytui.lesson.texts.stage_facts import tokens
from tinytui.model.trace import run


def facts(prompt: str) -> list[str]:
    setup = setup_from(build_parser().parse_args(["--prompt", prompt]))
    st = setup.state
    return tokens(run(st.params, st.prompt, st.target, st.switches, st.lr))


def test_one_token_and_several():
    assert facts("a") == ["1 token, id 0; target 'wood' is id 4"]
    assert facts("a woodchuck") == ["2 tokens, ids 0 5; target 'wood' is id 4"]
