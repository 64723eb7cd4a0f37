"""tinytui serve: the app over HTTP on loopback, stopped cleanly by ctrl+c, refusing a busy port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tinytui.cli.options import build_parser
from tinytui.cli.serve_command import app_command, check_port, is_loopback


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(port: int, *options: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config")}
    command = [sys.executable, "-m", "tinytui", "serve", "--port", str(port), *options]
    return subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def fetch(url: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_the_page_is_served_on_loopback_and_ctrl_c_frees_the_port(tmp_path):
    port = free_port()
    server = start(port, "--no-mask", cwd=tmp_path)
    try:
        page = fetch(f"http://127.0.0.1:{port}/")
        assert "<title>tinytui</title>" in page or "tinytui" in page
        assert "/ws" in page and "textual.js" in page
        assert "googleapis" not in page  # nothing the page loads leaves the machine
        with socket.socket() as other:  # bound to loopback, not to every address
            other.bind(("0.0.0.0", 0))
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=20)
    assert server.returncode == 0, err
    assert f"serving the debugger at http://127.0.0.1:{port}" in out
    assert check_port("127.0.0.1", port) is None  # free again


def test_a_busy_port_is_one_line_naming_it(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tinytui", "serve", "--port", str(port)], capture_output=True, text=True
        )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"tinytui: error: --port: 127.0.0.1:{port} is not free (Address already in use); "
        "choose another with --port"
    )


def test_each_tab_runs_tinytui_with_the_options_given():
    args = build_parser().parse_args(
        ["--theme", "light", "serve", "--no-pe", "--prompt", "a wood", "--lr", "1/4"]
    )
    command = app_command(args)
    assert command.startswith(f"{sys.executable} -m tinytui")
    assert "--prompt 'a wood'" in command and "--lr 1/4" in command and "--theme light" in command
    assert command.endswith("--no-pe") and "--no-mask" not in command


def test_loopback_and_other_hosts():
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")
    assert "is not a port" in check_port("127.0.0.1", 70000)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROME_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
)  # fmt: skip


async def _until(condition, seconds: float) -> None:
    import asyncio

    for _ in range(int(seconds * 10)):
        if condition():
            return
        await asyncio.sleep(0.1)


async def _drive(chromium: str, url: str, profile: Path, shot: Path, lesson: Path) -> None:
    """Open url in headless Chromium over the DevTools protocol, wait for the app (its recording on the
    server begins), press n, wait for the step it records, and take a screenshot."""
    import asyncio
    import base64
    import json

    import aiohttp

    browser = await asyncio.create_subprocess_exec(
        chromium, *CHROME_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0",
        "--window-size=1280,900", "about:blank", stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        while True:  # "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/…"
            line = (await asyncio.wait_for(browser.stderr.readline(), 30)).decode()
            if "DevTools listening on" in line:
                port = int(line.split("127.0.0.1:")[1].split("/")[0])
                break
        async with aiohttp.ClientSession() as http:
            async with http.put(f"http://127.0.0.1:{port}/json/new?{url}") as response:
                target = json.loads(await response.text())
            async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                ids = iter(range(1, 1000))

                async def call(method: str, **params):
                    n = next(ids)
                    await ws.send_json({"id": n, "method": method, "params": params})
                    while True:
                        message = await ws.receive_json()
                        if message.get("id") == n:
                            return message.get("result", {})

                await _until(lambda: lesson.exists(), 30)  # the page connected and the app is up
                await asyncio.sleep(1)  # its first frame reaches the page
                await call(
                    "Runtime.evaluate", expression="document.querySelector('.xterm-helper-textarea')?.focus()"
                )
                for kind in ("keyDown", "keyUp"):  # a keyDown with text types it once
                    await call("Input.dispatchKeyEvent", type=kind, key="n", text="n", code="KeyN",
                               windowsVirtualKeyCode=78)  # fmt: skip
                await _until(lambda: "1 · step 2/16" in lesson.read_text(encoding="utf-8"), 20)
                await asyncio.sleep(1)
                picture = await call("Page.captureScreenshot", format="png")
                shot.write_bytes(base64.b64decode(picture["data"]))
    finally:
        browser.kill()
        await browser.wait()


@pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium (apt-get install chromium) to drive a page"
)
def test_a_browser_loads_the_app_and_n_moves_to_step_2(tmp_path):
    """The served app records on the server side, so its transcript says what the browser's key did."""
    import asyncio

    port = free_port()
    lesson = tmp_path / "lesson.txt"
    server = start(port, "--record", str(lesson), cwd=tmp_path)
    try:
        fetch(f"http://127.0.0.1:{port}/")
        shot = tmp_path / "browser.png"
        asyncio.run(_drive(CHROMIUM, f"http://127.0.0.1:{port}/", tmp_path / "profile", shot, lesson))
        assert shot.stat().st_size > 10_000
        text = lesson.read_text(encoding="utf-8")
        assert "1 · step 2/16" in text  # the n typed in the browser reached the app, once
        assert "2 · step 3/16" not in text
        if os.environ.get("TINYTUI_KEEP_SHOT"):
            shutil.copy(shot, os.environ["TINYTUI_KEEP_SHOT"])
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=20)
