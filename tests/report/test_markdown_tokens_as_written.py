"""Markdown output shows a token as written: GPT-2's vocabulary has tokens such as "**", "_x_", "<b>"
and "|", which unescaped would become emphasis, an HTML tag or a new table column; the usual names
(W_Q, x_n[0,·]) stay as they are."""

from tinytui.report.render import markdown_table, markdown_text
from tinytui.report.tables import Table


def test_markup_in_a_token_is_escaped_and_names_stay_readable():
    assert markdown_text("**") == "\\*\\*"
    assert markdown_text("_x_") == "\\_x\\_"
    assert markdown_text("<b>") == "\\<b>"
    assert markdown_text("a|b") == "a\\|b"
    assert markdown_text("`") == "\\`"
    for name in ("W_Q", "x_n[0,·]", "∂L/∂W_O", "blocks.0.attn.2"):
        assert markdown_text(name) == name


def test_a_table_of_such_tokens_keeps_its_columns():
    table = Table("top tokens", "token", ("**", "_x_", "|"), ("p",), (("0.5000",), ("0.2500",), ("0.2500",)))
    rows = markdown_table(table).splitlines()[4:]
    assert rows == ["| \\*\\* | 0.5000 |", "| \\_x\\_ | 0.2500 |", "| \\| | 0.2500 |"]
    assert all(row.replace("\\|", "").count("|") == 3 for row in rows)  # two columns each
