"""The action table: every action once, reachable from its keys, the ? screen and the palette; a keymap
in the settings file remaps keys, and a bad entry is a notice that keeps the default."""

import json

from tests.apps import make_app
from tests.tui.helpers import info, press
from tinytui.cli.debugger import app_options
from tinytui.cli.options import build_parser
from tinytui.recording.recorder import Recorder
from tinytui.recording.replay import Replayer, load_recording
from tinytui.tui.actions import ACTION_BY_ID, ACTIONS, check_keymap, with_sharers
from tinytui.tui.app import TinyTuiApp
from tinytui.tui.screens.help_screen import help_rows
from tinytui.tui.widgets.step_view import StepView


def test_each_action_is_described_once_and_runs_a_controller_method(app):
    assert len(ACTION_BY_ID) == len(ACTIONS)
    for action in ACTIONS:
        for path in filter(None, (action.run, action.when, action.note)):
            controller, method = path.split(".")
            assert callable(getattr(getattr(app, controller), method)), (action.id, path)
        assert action.help and action.footer, action.id
    bound = {b.id for b in TinyTuiApp.BINDINGS}
    assert bound == {a.id for a in ACTIONS if a.keys}


async def test_help_and_palette_list_every_action(app):
    async with app.run_test(size=(120, 40)):
        rows = help_rows(app, app.help_sources())
        described = {what for _, _, what, _ in rows}
        for action in ACTIONS:
            if action.keys and not action.group:
                assert action.footer in described, action.id
        titles = {c.title for c in app.palette_commands()}
        for action in ACTIONS:
            if action.palette and app.applies(action):
                assert action.palette in titles, action.id
        # one of two actions on one key applies at a time, in the footer and the palette alike
        assert "Walk the gradient backwards" in titles and "Leave the backward walk" not in titles


async def test_a_palette_entry_runs_its_action_and_says_the_state(app):
    async with app.run_test(size=(120, 40)) as pilot:
        mask = next(c for c in app.palette_commands() if c.title == "Toggle the causal mask")
        assert "now the chapter's setting" in mask.help and "key m" in mask.help
        mask.run()
        await pilot.pause()
        assert not app.session.state.switches.causal_mask
        mask = next(c for c in app.palette_commands() if c.title == "Toggle the causal mask")
        assert "now changed" in mask.help


def test_a_bad_keymap_entry_is_a_notice_and_keeps_the_default():
    good, notices = check_keymap({"next-step": "j, down", "no-such-action": "x", "undo": "", "redo": 5})
    assert good == {"next-step": "j,down"}
    assert len(notices) == 3
    assert "'no-such-action'" in notices[0] and "no action has that id" in notices[0]
    assert all("keeps its default keys" in n for n in notices)
    assert check_keymap(["next-step"])[0] == {}


async def test_the_settings_keymap_remaps_keys_in_the_app_and_its_help(tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "tinytui").mkdir(parents=True)
    settings = {"keymap": {"next-step": "j", "toggle-mask": "V", "nonsense": "x"}}
    (config / "tinytui" / "settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    theme, notices, keymap = app_options(build_parser().parse_args([]))
    assert keymap == {"next-step": "j", "toggle-mask": "V"}
    assert len(notices) == 1 and "'nonsense'" in notices[0]
    app = make_app(theme=theme, notices=notices, keymap=keymap)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "j")
        assert app.session.step == 2
        await press(pilot, "V")
        assert not app.session.state.switches.causal_mask
        await press(pilot, "m")  # the default key of a remapped action no longer does it
        assert not app.session.state.switches.causal_mask
        rows = {what: keys for _, keys, what, _ in help_rows(app, app.help_sources())}
        assert rows["Next"] == "j" and rows["Mask"] == "V"
        assert any("nonsense" in n.message for n in app.toasts.notes())


async def test_replaying_a_recorded_walk_enters_the_walk(chapter, tmp_path):
    recorded = make_app()
    async with recorded.run_test(size=(120, 40)) as pilot:
        recorder = Recorder(tmp_path / "walk.txt", clock=None)
        recorder.attach(recorded.session)
        await press(pilot, "9", "b", "n", "escape")
        recorder.stop()
    replayer = Replayer(load_recording(tmp_path / "walk.txt"))
    app = TinyTuiApp(replayer.new_session(), replay=replayer)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n", "n")  # step 9, then "entered the backward walk at step 9"
        assert app.session.mode.backward and app.session.step == 9
        assert "Backward pass · step 9" in info(app)
        await press(pilot, "n")  # a walk the replay entered: n goes on replaying (the recorded walk step)
        assert app.session.step == 8 and app.session.mode.backward and app.recording.replayer.position == 3
        await press(pilot, "n")  # the recorded Esc
        assert app.recording.replayer.done and not app.session.mode.backward and app.session.step == 8


async def test_palette_help_shows_brackets_as_written(app):
    from textual.content import Content

    from tinytui.tui.palette import TinyTuiCommands

    async with app.run_test(size=(120, 40)):
        provider = TinyTuiCommands(app.screen)
        hits = [hit async for hit in provider.discover()]
        step2 = next(h for h in hits if "Go to step 2" in str(h.display))
        assert Content.from_markup(step2.help).plain == "e_p = E[id_p]"  # not "e_p = E" (markup ate it)


async def test_help_starts_with_keys_that_work_now(app):
    async with app.run_test(size=(120, 40)):
        rows = [what for _, _, what, _ in help_rows(app, app.help_sources())]
        assert rows[0] == "Next"
        assert rows.index("Next event") > rows.index("Quit")  # not replaying: listed after what works


async def test_a_remapped_key_stays_with_the_actions_that_share_it(tmp_path):
    # next-step moves to j: the presenter's n and replay's n, bound to the same default key, keep it
    assert with_sharers({"next-step": "j"}) == {
        "next-step": "j",
        "next-event": "n",
        "presenter-next": "n,right,space",
    }
    assert with_sharers({"next-step": "j", "compare": "space"})["presenter-next"] == "n,right"  # space taken
    app = make_app(large=True, keymap={"next-step": "j"})
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "8")
        assert app.query_one(StepView).page == 0
        await press(pilot, "n")  # the presenter's next table
        assert app.query_one(StepView).page == 1 and app.session.step == 8
        await press(pilot, "j")  # next-step's own key: the next step
        assert app.session.step == 9

    recorded = make_app()
    async with recorded.run_test(size=(120, 40)) as pilot:
        recorder = Recorder(tmp_path / "moves.txt", clock=None)
        recorder.attach(recorded.session)
        await press(pilot, "3", "5")
        recorder.stop()
    replayer = Replayer(load_recording(tmp_path / "moves.txt"))
    app = TinyTuiApp(replayer.new_session(), replay=replayer, keymap={"next-step": "j"})
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n", "n")  # replay's n applies the recorded events
        assert app.recording.replayer.done and app.session.step == 5
