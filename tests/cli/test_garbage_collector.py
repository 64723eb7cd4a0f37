"""The debugger's process freezes what exists before the app runs and collects the young less often;
every other command freezes what it loaded and collects as usual."""

import gc

from tinytui.cli import debugger, garbage_collector
from tinytui.cli import main as cli


def test_settle_freezes_what_exists_and_collects_the_young_every_10000():
    before = gc.get_threshold()
    kept = [object() for _ in range(3)], {"a": [1, 2]}  # containers that exist before: frozen
    frozen = gc.get_freeze_count()  # the suite's conftest froze what collection made
    try:
        gc.set_threshold(700, before[1], before[2])  # Python's default (the suite's conftest set 10,000)
        garbage_collector.settle()
        assert gc.get_threshold() == (10_000, before[1], before[2])
        assert gc.get_freeze_count() >= frozen + 2
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
    assert kept


def test_resume_freezes_what_was_loaded_and_collects_again():
    kept = [object() for _ in range(3)], {"a": [1, 2]}  # containers that exist before: frozen
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        garbage_collector.resume()
        assert gc.isenabled()
        assert gc.get_freeze_count() >= frozen + 2
    finally:
        gc.unfreeze()
        gc.enable()
    assert kept


def test_run_app_settles_the_collector_before_the_app_runs(monkeypatch):
    order: list[str] = []
    monkeypatch.setattr(garbage_collector, "settle", lambda: order.append("settle"))

    class App:
        crash_report = None
        return_code = 0

        def run(self):
            order.append("run")

    assert debugger.run_app(App()) == 0
    assert order == ["settle", "run"]


def test_the_command_pauses_the_collector_while_it_loads_and_any_other_command_resumes_it(capsys):
    from tinytui.cli import launch

    seen: list[bool] = []
    real = cli.main

    def main(argv):
        seen.append(gc.isenabled())  # as the program's modules load and its arguments are read
        return real(argv)

    try:
        cli.main = main
        assert launch.main(["presets"]) == 0
        after = gc.isenabled()
    finally:
        cli.main = real
        gc.unfreeze()  # what `presets` froze: this test process's objects
        gc.enable()
    assert seen == [False]
    assert after  # `presets` is not the app: collection came back on as soon as it was read
    assert capsys.readouterr().out.count("\n") >= 3  # and it listed the presets
