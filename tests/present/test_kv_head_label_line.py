"""The inspector's line for a key/value head's label says what a key/value head is, not what a query
head is (the glossary's "kv head 1" entry, before the query heads' "head 1")."""

from tinytui.present.grid_labels import COLUMN, Label, label_line
from tinytui.tui.controllers.why_controller import GLOSSARY


def test_a_kv_head_label_reads_as_a_key_value_head():
    kv = label_line(Label(COLUMN, "kv head 2: K", 0, "K — per head"), GLOSSARY)
    assert kv == (
        "kv head 2: K · column 0 of K — per head: a key/value head: its keys and values are read by several "
        "query heads (grouped-query)"
    )
    query = label_line(Label(COLUMN, "head 2: Q", 0, "Q — per head"), GLOSSARY)
    assert "key/value" not in query and "each reads its own q, k and v" in query
