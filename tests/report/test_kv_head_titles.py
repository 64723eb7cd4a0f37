"""A grouped-query model's key/value tensors and weights are titled by their key/value head ("kv head 1:
K"), so head 1 of the keys is not mistaken for query head 1; a model with a key/value head per query
head keeps "head 1"."""

from tinytui.model.io.model_file import load
from tinytui.model.io.presets import presets
from tinytui.model.trace import run
from tinytui.report.tables import param_table, tensor_table


def test_kv_tensors_and_weights_name_their_key_value_head(chapter, trace):
    llama = load(presets()["chapter17-llama"])  # 4 query heads over 2 key/value heads
    t = run(llama.params, llama.prompt, llama.target)
    titles = [tensor_table(t, f"blocks.0.{n}").title for n in ("q_pre.4", "q.4", "k_pre.2", "k.2", "v.1")]
    assert titles == ["head 4: Q_pre", "head 4: Q", "kv head 2: K_pre", "kv head 2: K", "kv head 1: V"]
    w_k = [table.title for table in param_table(t, llama.params, "blocks.0.W_K")]
    w_q = [table.title for table in param_table(t, llama.params, "blocks.0.W_Q")]
    assert [title.rpartition(") ")[2] for title in w_k] == ["kv head 1", "kv head 2"]
    assert [title.rpartition(") ")[2] for title in w_q] == ["head 1", "head 2", "head 3", "head 4"]
    # the chapter's model: one key/value head per query head, named as before
    assert tensor_table(trace, "blocks.0.k.2").title == "head 2: K"
    chapter_w_k = param_table(trace, chapter.params, "W_K")
    assert [table.title for table in chapter_w_k] == ["W_K head 1", "W_K head 2"]
