"""At a terminal the quiz lists a question's first MAX_OPERANDS operands and names a command for the rest;
that command, run as named with the quiz's run options, lists every one. It named `tinytui why CELL`,
which writes four terms and "… + N more"."""

from __future__ import annotations

import json
import re
import shlex

from tests.gpt2.checkpoints import TINY
from tinytui.cli.main import main
from tinytui.cli.quiz_command import MAX_OPERANDS, operands
from tinytui.lesson.practice.questions import questions_at
from tinytui.model.io.checkpoint import load_model
from tinytui.model.trace import run


def test_the_command_named_for_the_rest_lists_every_operand(capsys):
    model = load_model(TINY)
    trace = run(model.params, model.prompt, model.target)
    (q,) = questions_at(trace, model.params, [("probs", (5,))])
    assert len(q.why.operands) == len(model.cfg.vocab) > MAX_OPERANDS  # p[5] reads every logit
    last = operands(q, model.cfg.n_blocks)[-1]
    assert last.startswith(f"… and {len(q.why.operands) - MAX_OPERANDS} more")
    named = shlex.split(re.search(r"tinytui (why .*?'.*?')", last).group(1))
    assert main([*named, "--model", str(TINY)]) == 0
    listed = json.loads(capsys.readouterr().out)["operands"]
    assert [(o["name"], tuple(o["index"])) for o in listed] == [(o.name, o.index) for o in q.why.operands]
