"""tinytui serve: the app over HTTP on loopback, stopped cleanly by ctrl+c, refusing a busy port."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tinytui.cli.options import build_parser
from tinytui.cli.serve_command import (
    app_command,
    check_port,
    check_record_name,
    clamped_size,
    ended_with_server,
    is_loopback,
    origin_of,
    own_origins,
    session_record,
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(port: int, *options: str, cwd: Path) -> subprocess.Popen:
    (cwd / "tmp").mkdir(exist_ok=True)  # the server's temporary folder goes here, to be looked at
    env = {**os.environ, "XDG_CONFIG_HOME": str(cwd / "config"), "TMPDIR": str(cwd / "tmp")}
    command = [sys.executable, "-m", "tinytui", "serve", "--port", str(port), *options]
    return subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def opened(server: subprocess.Popen) -> str:
    """The run's token, from the address the server printed (its first line)."""
    line = server.stdout.readline()
    assert "serving the debugger at http://127.0.0.1:" in line, line
    return line.split("/?token=", 1)[1].split()[0]


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


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
        token = opened(server)
        page = fetch(f"http://127.0.0.1:{port}/?token={token}")
        assert "<title>tinytui</title>" in page or "tinytui" in page
        assert (
            f'data-session-websocket-url="ws://127.0.0.1:{port}/ws/{token}"' in page and "textual.js" in page
        )
        assert "googleapis" not in page  # nothing the page loads leaves the machine
        wrong = ("B" if token[0] == "A" else "A") + token[1:]
        assert (
            status_of(f"http://127.0.0.1:{port}/")
            == status_of(f"http://127.0.0.1:{port}/?token={wrong}")
            == 403
        )
        with socket.socket() as other:  # bound to loopback, not to every address
            other.bind(("0.0.0.0", 0))
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=20)
    assert server.returncode == 0, err
    assert len(token) >= 43 and "stopped serving" in out
    assert "/?token=…" in out + err and token not in out + err  # the access log leaves it out
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


# ---- who may start an app, at what size, and what is left when the server stops --------------------


def children(pid: int) -> set[int]:
    """The processes pid started (Linux's /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(n) for n in (task / "children").read_text().split()}
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def _handshake(port: int, origin: str | None, query: str, draw: bool = True, path: str = "/ws"):
    """Open the app's websocket at path as a page from origin would, keep it while the caller looks,
    and give back (status of a refusal or None, the highest row the app drew on)."""
    import asyncio
    import re

    import aiohttp

    headers = {"Origin": origin} if origin is not None else {}
    async with aiohttp.ClientSession() as http:
        try:
            async with asyncio.timeout(15):  # the handshake, bounded
                ws = await http.ws_connect(f"http://127.0.0.1:{port}{path}?{query}", headers=headers)
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, None, None
        if not draw:
            return None, None, ws
        drawn = b""
        rows: list[int] = []
        async with asyncio.timeout(30):
            while not rows or max(rows) < 24:  # the first frame's lower half is drawn
                message = await ws.receive()
                assert message.type == aiohttp.WSMsgType.BINARY, message
                drawn += message.data
                rows = [int(n) for n in re.findall(rb"\x1b\[(\d+);\d+H", drawn)]
        await asyncio.sleep(0.5)  # the rest of the frame
        while True:
            try:
                message = await asyncio.wait_for(ws.receive(), 0.5)
            except TimeoutError:
                break
            if message.type == aiohttp.WSMsgType.BINARY:
                drawn += message.data
        rows = [int(n) for n in re.findall(rb"\x1b\[(\d+);\d+H", drawn)]
        return None, max(rows), ws


def handshake(port: int, origin: str | None, query: str, then=None, draw=True, path: str = "/ws"):
    """_handshake, then then() while the socket is still open; (refusal status, highest row)."""
    import asyncio

    async def run():
        status, rows, ws = await _handshake(port, origin, query, draw, path)
        if then is not None:
            then()
        if ws is not None:
            await ws.close()
        return status, rows

    return asyncio.run(run())


def stop(server: subprocess.Popen) -> tuple[str, str]:
    server.send_signal(signal.SIGINT)
    return server.communicate(timeout=30)


def test_a_page_from_another_site_starts_no_app(tmp_path):
    port = free_port()
    proxy = "http://proxy.example:8443"
    server = start(port, "--record", "lesson.txt", "--allow-origin", proxy, cwd=tmp_path)
    try:
        token = opened(server)
        query = f"token={token}&width=80&height=24"
        fetch(f"http://127.0.0.1:{port}/?token={token}")
        for origin in ("http://evil.example", f"http://evil.example:{port}", f"https://127.0.0.1:{port}1",
                       "null", "", None):  # fmt: skip
            status, _ = handshake(port, origin, query)
            assert status == 403, origin
        # the server's own origin (anyone on the machine can forge it) without the run's token
        wrong = ("B" if token[0] == "A" else "A") + token[1:]
        for without in ("width=80&height=24", f"token={wrong}&width=80&height=24"):
            status, _ = handshake(port, f"http://127.0.0.1:{port}", without)
            assert status == 403, without
        assert children(server.pid) == set()  # refused before any app started
        assert not list(tmp_path.glob("lesson*"))
        status, _ = handshake(port, proxy, query, draw=False)  # named with --allow-origin: accepted
        assert status is None
    finally:
        _, err = stop(server)
    assert server.returncode == 0, err
    assert "refused a browser session from origin 'http://evil.example'" in err
    assert "--allow-origin URL allows another" in err


def test_own_page_is_served_at_a_capped_size_and_stopping_ends_every_app(tmp_path):
    port = free_port()
    (tmp_path / "lesson-1.txt").write_text("my notes\n", encoding="utf-8")
    (tmp_path / "lesson.txt").write_text("the name given, never written\n", encoding="utf-8")
    server = start(port, "--record", "lesson.txt", cwd=tmp_path)
    apps: set[int] = set()
    try:
        page = fetch(f"http://127.0.0.1:{port}/?token={opened(server)}")
        # the address the page gives its script, which adds only "?width=…&height=…"
        socket_path = re.search(r'data-session-websocket-url="ws://127.0.0.1:\d+(/ws/[^"?]+)"', page)[1]
        assert len(list((tmp_path / "tmp").iterdir())) == 1  # the page's template folder

        def look():
            apps.update(children(server.pid))
            assert len(apps) == 1 and all(alive(pid) for pid in apps)
            # the app itself (the shell exec'd it), recording to the first free name
            (app,) = apps
            assert "-m tinytui --record lesson-2.txt" in Path(f"/proc/{app}/cmdline").read_text().replace(
                "\0", " "
            )
            server.send_signal(signal.SIGTERM)  # stop the server while the browser is still there

        status, rows = handshake(
            port, f"http://localhost:{port}", "width=120&height=100000", then=look, path=socket_path
        )
        assert status is None and rows == 500  # the 100000 rows asked for, capped
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
        out, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert "stopped serving" in out
    assert apps and not any(alive(pid) for pid in apps)  # the app stopped with the server
    assert list((tmp_path / "tmp").iterdir()) == []  # its temporary folder is gone
    assert (tmp_path / "lesson-1.txt").read_text(encoding="utf-8") == "my notes\n"  # not replaced
    assert "step 1/16" in (tmp_path / "lesson-2.txt").read_text(encoding="utf-8")


@pytest.mark.skipif(not ended_with_server(), reason="needs Linux's setpriv --pdeathsig")
def test_an_app_ends_even_when_its_server_is_killed(tmp_path):
    port = free_port()
    server = start(port, cwd=tmp_path)
    apps: set[int] = set()
    try:
        token = opened(server)
        fetch(f"http://127.0.0.1:{port}/?token={token}")

        def kill_the_server():
            deadline = time.monotonic() + 20
            while not apps and time.monotonic() < deadline:  # the app starts just after the handshake
                apps.update(children(server.pid))
                time.sleep(0.05)
            time.sleep(0.5)  # past setpriv's exec into the app
            server.kill()  # SIGKILL: nothing of the server's own can run
            server.wait(timeout=30)

        query = f"token={token}&width=80&height=24"
        status, _ = handshake(port, f"http://127.0.0.1:{port}", query, then=kill_the_server, draw=False)
        assert status is None and len(apps) == 1
        deadline = time.monotonic() + 20
        while any(alive(pid) for pid in apps) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(pid) for pid in apps)  # before, it ran on under init
    finally:
        if server.poll() is None:
            server.kill()
        server.communicate(timeout=30)
        for pid in apps:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_origins_sizes_and_session_files(tmp_path):
    assert origin_of("HTTP://LocalHost:8000/page") == "http://localhost:8000"
    assert origin_of("https://example.org") == "https://example.org:443"
    assert origin_of("http://[::1]:80") == "http://[::1]:80"
    assert origin_of("null") is None and origin_of("") is None and origin_of("file:///x") is None
    assert origin_of("http://a:99999") is None
    assert own_origins("127.0.0.1", 8000) == {
        "http://127.0.0.1:8000", "https://127.0.0.1:8000", "http://localhost:8000", "https://localhost:8000",
    }  # fmt: skip
    assert own_origins("192.0.2.1", 80) == {"http://192.0.2.1:80", "https://192.0.2.1:80"}
    assert clamped_size(100_000, 100_000) == (1000, 500)
    assert clamped_size(-5, 0) == (1, 1) and clamped_size(120, 40) == (120, 40)
    (tmp_path / "lesson-1.jsonl").write_text("", encoding="utf-8")  # a half of a pair counts too
    given: set[Path] = set()
    name = str(tmp_path / "lesson.txt")
    assert session_record(name, given) == tmp_path / "lesson-2.txt"
    assert session_record(name, given) == tmp_path / "lesson-3.txt"  # given once, even before it exists
    assert session_record(str(tmp_path / "notes"), given) == tmp_path / "notes-1"
    assert "names a folder" in check_record_name(str(tmp_path))
    assert "does not exist" in check_record_name(str(tmp_path / "gone" / "lesson.txt"))
    assert "name the transcript" in check_record_name("lesson.jsonl")
    assert check_record_name(name) is None


def test_bad_serve_options_are_one_line(tmp_path):
    for options, said in (
        (["--allow-origin", "evil"], "--allow-origin: 'evil' is not a web origin"),
        (["--record", str(tmp_path)], "--record: "),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "tinytui", "serve", "--port", str(free_port()), *options],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert said in done.stderr.strip().splitlines()[-1], done.stderr
        assert "Traceback" not in done.stderr


def test_each_tab_runs_tinytui_with_the_options_given():
    args = build_parser().parse_args(
        ["--theme", "light", "serve", "--no-pe", "--prompt", "a wood", "--lr", "1/4"]
    )
    command = app_command(args)
    assert command.startswith(f"{sys.executable} -m tinytui")
    assert "--prompt 'a wood'" in command and "--lr 1/4" in command and "--theme tinytui-light" in command
    assert command.endswith("--no-pe") and "--no-mask" not in command
    assert "--record" not in command  # each session is given its own file
    assert "--record lesson-2.txt" in app_command(args, Path("lesson-2.txt"))


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
    lesson = tmp_path / "lesson-1.txt"  # --record lesson.txt: the first session's own file
    server = start(port, "--record", str(tmp_path / "lesson.txt"), cwd=tmp_path)
    try:
        page = f"http://127.0.0.1:{port}/?token={opened(server)}"
        fetch(page)
        shot = tmp_path / "browser.png"
        asyncio.run(_drive(CHROMIUM, page, tmp_path / "profile", shot, lesson))
        assert shot.stat().st_size > 10_000
        text = lesson.read_text(encoding="utf-8")
        assert "1 · step 2/16" in text  # the n typed in the browser reached the app, once
        assert "2 · step 3/16" not in text
        if os.environ.get("TINYTUI_KEEP_SHOT"):
            shutil.copy(shot, os.environ["TINYTUI_KEEP_SHOT"])
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=20)
