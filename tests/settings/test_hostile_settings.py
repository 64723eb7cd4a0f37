"""Hostile settings files, read like a model file: each is ignored with one notice naming the file and
why, never waited on, never read whole into memory, never overwritten; a keymap that clashes is said
in a notice and can never take away the key that quits."""

from __future__ import annotations

import json
import os

import pytest

from tests.apps import make_app
from tests.tui.helpers import press
from tinytui.cli.debugger import app_options
from tinytui.cli.options import build_parser
from tinytui.settings import MAX_BYTES, Settings, load_settings, remember, settings_path
from tinytui.tui.actions import ACTIONS, check_keymap


@pytest.fixture(autouse=True)
def config_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    settings_path().parent.mkdir(parents=True)
    return tmp_path / "xdg"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


CASES = [
    # (id, the file's text, what the notice says)
    ("100,000 nested brackets", nested(100_000), "it is larger than 64 KB, the most tinytui reads"),
    ("30,000 nested brackets", nested(30_000), "nested too deeply"),
    ("nested in the keymap", json.dumps({"keymap": {"next-step": [[["j"]]]}}), "nested too deeply"),
    ("a keymap of lists", json.dumps({"keymap": {"next-step": ["j"]}}), "'keymap' must be an object"),
    ("a keymap list", json.dumps({"keymap": ["next-step"]}), "'keymap' must be an object"),
    ("a theme number", json.dumps({"theme": 7}), "'theme' must be a theme name"),
    ("a surrogate theme", '{"theme": "dark\\udc80"}', "lone UTF-16 surrogate U+DC80"),
    ("an escape in the theme", json.dumps({"theme": "\x1b]0;owned\x07"}), "control character U+001B"),
    ("a long theme", json.dumps({"theme": "t" * 101}), "101 characters is too long"),
    ("NaN", '{"theme": NaN}', "NaN is not a value a settings file holds"),
    ("-Infinity in an unknown key", '{"later": -Infinity}', "-Infinity is not a value"),
    ("a number of 5000 digits", '{"later": ' + "9" * 5000 + "}", "a number of 5000 digits is longer"),
    ("a number JSON cannot write back", '{"later": [1e999]}', "'1e999' is too large a number"),
    ("a wrong format", json.dumps({"format": "tinytui-settings/9"}), "format 'tinytui-settings/9'"),
]


@pytest.mark.parametrize(("text", "why"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_hostile_settings_file_is_ignored_in_one_line_and_left_alone(text, why):
    path = settings_path()
    path.write_text(text, encoding="utf-8")
    settings, notice = load_settings()
    assert settings == Settings()
    assert notice.startswith(f"Ignored the settings file {path}: ") and why in notice
    assert "\n" not in notice and len(notice) < 300
    assert remember(theme="tinytui-light").startswith("Did not remember the setting: the settings file")
    assert path.read_text(encoding="utf-8") == text  # never overwritten
    assert os.listdir(path.parent) == ["settings.json"]  # nothing written beside it


def test_the_size_limit_is_the_one_said():
    assert MAX_BYTES == 64 * 1024


def test_a_fifo_is_refused_without_waiting_for_a_writer():
    os.mkfifo(settings_path())
    settings, notice = load_settings()  # blocked at start forever before
    assert settings == Settings()
    assert notice == (
        f"Ignored the settings file {settings_path()}: cannot read it "
        "(it is a FIFO, device or socket, not a regular file)."
    )
    assert remember(theme="tinytui-light").startswith("Did not remember the setting")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_link_to_an_endless_device_is_refused_unread(device):
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    os.symlink(device, settings_path())  # 3.8 GB in 6 s, then MemoryError, or blocked, before
    settings, notice = load_settings()
    assert settings == Settings()
    assert "cannot read it (it is a FIFO, device or socket, not a regular file)" in notice
    assert os.readlink(settings_path()) == device


def test_a_folder_is_refused():
    settings_path().mkdir()
    assert "cannot read it (it is a folder, not a regular file)" in load_settings()[1]


# ---- the keymap ---------------------------------------------------------------------------------


def test_every_action_on_q_is_refused_and_q_still_quits():
    good, notices = check_keymap({a.id: "q" for a in ACTIONS})
    assert good == {"quit": "q"}
    assert len(notices) == 1
    assert notices[0].startswith("Ignored keymap entries 'next-event', 'presenter-next', ")
    assert f"and {len(ACTIONS) - 5} more: q quits tinytui" in notices[0]
    assert notices[0].endswith("the default keys stay.")


def test_an_entry_may_take_q_once_quit_has_another_key():
    good, notices = check_keymap({"quit": "x", "next-step": "q"})
    assert good == {"quit": "x", "next-step": "q"} and notices == []


def test_ctrl_q_is_a_key_that_quits_too():
    good, notices = check_keymap({"undo": "ctrl+q"})
    assert good == {} and "ctrl+q quits tinytui" in notices[0]


def test_no_entry_takes_the_command_palette_s_key():
    good, notices = check_keymap({"next-step": "j,ctrl+p", "undo": "ctrl+z"})
    assert good == {"undo": "ctrl+z"}
    assert notices == [
        "Ignored keymap entry 'next-step': ctrl+p opens the command palette; the default keys stay."
    ]


def test_every_action_on_n_keeps_the_first_and_names_the_rest():
    good, notices = check_keymap({a.id: "n" for a in ACTIONS if a.id != "quit"})
    first = ACTIONS[0].id
    assert good == {first: "n"}
    assert notices[0].startswith("Ignored keymap entries ") and f"n is already {first}'s key" in notices[0]
    taken = "presenter-next loses n; next-step loses n"
    assert notices[1] == f"The keymap takes keys from other actions: {taken}."


def test_a_key_taken_from_an_action_the_keymap_leaves_alone_is_said():
    good, notices = check_keymap({"next-step": "j", "undo": "m"})  # m toggles the mask by default
    assert good == {"next-step": "j", "undo": "m"}
    assert notices == ["The keymap takes keys from other actions: toggle-mask loses m."]


def test_two_entries_on_one_key_keep_the_first():
    good, notices = check_keymap({"undo": "j", "redo": "J,j"})
    assert good == {"undo": "j"}
    why = "j is already undo's key in the keymap"
    assert notices == [f"Ignored keymap entry 'redo': {why}; the default keys stay."]


async def test_in_the_app_q_still_quits_under_a_keymap_of_everything_on_q():
    path = settings_path()
    path.write_text(json.dumps({"keymap": {a.id: "q" for a in ACTIONS}}), encoding="utf-8")
    theme, notices, keymap = app_options(build_parser().parse_args([]))
    assert keymap == {"quit": "q"} and any("q quits tinytui" in n for n in notices)
    app = make_app(theme=theme, notices=notices, keymap=keymap)
    async with app.run_test(size=(120, 40)) as pilot:
        await press(pilot, "n")
        assert app.session.step == 2  # n is still next
        await press(pilot, "q")
        assert not app.is_running  # and q quits
