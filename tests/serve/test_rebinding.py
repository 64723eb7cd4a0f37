"""tinytui serve against pages of other sites: crafted requests to a served instance on a random port.
A page whose name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name as Host and is
refused everywhere; a page on another site (its Origin) may not open the app's websocket; a request
without the run's token (another user of the machine, who can forge any header) is refused."""

from __future__ import annotations

import asyncio
import io
import socket
from pathlib import Path

import pytest

from tinytui.cli.options import build_parser
from tinytui.cli.serve_command import (
    guarded_server,
    host_allowed,
    new_token,
    own_hosts,
    token_cookie,
    token_matches,
    write_offline_templates,
)

pytest.importorskip("textual_serve")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


TOKEN = new_token()
WRONG = ("B" if TOKEN[0] == "A" else "A") + TOKEN[1:]  # as long as the token, one letter off
UPGRADE = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}  # fmt: skip


async def _responses(tmp_path: Path, port: int, requests: list[tuple[str, dict[str, str]]]):
    """Serve on loopback at port with TOKEN (no app is started: none of these may start one) and give
    the status and the cookie set (or "") of each (path, headers) request."""
    import aiohttp
    from aiohttp.test_utils import TestServer

    args = build_parser().parse_args(["serve", "--port", str(port)])
    write_offline_templates(tmp_path)
    server = guarded_server(args, f"http://127.0.0.1:{port}", TOKEN, tmp_path, io.StringIO())
    served = TestServer(await server._make_app(), host="127.0.0.1", port=port)
    await served.start_server()
    try:
        out = []
        # no cookie jar: a request carries only the cookie its headers name
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as http:
            for path, headers in requests:
                url = f"http://127.0.0.1:{port}{path}"
                async with http.get(url, headers=headers, allow_redirects=False) as response:
                    out.append((response.status, response.headers.get("Set-Cookie", "")))
        return out
    finally:
        await served.close()


async def _statuses(tmp_path: Path, requests: list[tuple[str, dict[str, str]]]) -> list[int]:
    return [status for status, _ in await _responses(tmp_path, free_port(), requests)]


def test_the_servers_own_names_pass_and_a_rebound_name_does_not():
    # the names a browser on this machine writes for this server, and those a rebinding page writes
    ok = ["127.0.0.1:8000", "localhost:8000", "LOCALHOST:8000", "[::1]:8000"]
    bad = ["evil.example:8000", "evil.example", "127.0.0.1", "127.0.0.1:1", "", "localhost:8000.evil"]
    hosts = own_hosts("127.0.0.1", 8000, [])
    assert all(host_allowed(h, hosts) for h in ok)
    assert not any(host_allowed(h, hosts) for h in bad) and not host_allowed(None, hosts)


def test_crafted_requests_to_a_served_instance(tmp_path):
    async def run():
        return await _statuses(
            tmp_path,
            [
                (f"/?token={TOKEN}", {}),  # the server's own page, as a browser on this machine asks
                (f"/?token={TOKEN}", {"Host": "evil.example"}),  # a page whose name now resolves to 127.0.0.1
                ("/static/js/textual.js", {"Host": "evil.example"}),
                ("/download/0123456789abcdef", {"Host": "evil.example"}),
                ("/ws", {"Host": "evil.example", "Origin": "http://evil.example"}),
                # a page of another site, opening the websocket by this server's address
                (f"/ws?token={TOKEN}", {"Origin": "http://evil.example", **UPGRADE}),
            ],
        )

    statuses = asyncio.run(run())
    assert statuses == [200, 403, 403, 403, 403, 403]


def test_without_the_runs_token_nothing_but_the_static_files_is_served(tmp_path):
    port = free_port()
    own = {
        "Origin": f"http://127.0.0.1:{port}",
        **UPGRADE,
    }  # the server's own page: only the token is missing
    cookie = token_cookie(port)
    requests = [
        ("/", {}),
        (f"/?token={WRONG}", {}),
        ("/?token=", {}),
        ("/", {"Cookie": f"{cookie}={WRONG}"}),
        ("/", {"Cookie": f"{token_cookie(port + 1)}={TOKEN}"}),  # another port's cookie
        ("/ws?width=80&height=24", own),
        (f"/ws?token={WRONG}&width=80&height=24", own),
        ("/ws?width=80&height=24", {"Cookie": f"{cookie}={WRONG}", **own}),
        (f"/ws/{WRONG}?width=80&height=24", own),  # as the page's own socket names it, but wrong
        ("/download/0123456789abcdef", {}),
        ("/static/js/textual.js", {}),  # textual-serve's script: open, it drives nothing
        (f"/?token={TOKEN}", {}),
        ("/", {"Cookie": f"{cookie}={TOKEN}"}),  # the cookie the page set: its socket and downloads
    ]
    out = asyncio.run(_responses(tmp_path, port, requests))
    assert [status for status, _ in out] == [403] * 10 + [200, 200, 200]
    assert not any(set_cookie for _, set_cookie in out[:-2])
    set_cookie = out[-2][1]  # the page opened with the token
    assert set_cookie.startswith(f"{cookie}={TOKEN};") and "HttpOnly" in set_cookie
    assert "SameSite=Strict" in set_cookie and "Path=/" in set_cookie


def test_tokens_are_new_each_run_and_compared_whole():
    assert len(TOKEN) >= 43 and new_token() != TOKEN
    assert token_matches(TOKEN, TOKEN)
    for given in (WRONG, TOKEN[:-1], TOKEN + "A", "", None, "\udcff" * len(TOKEN), "é" * len(TOKEN)):
        assert not token_matches(given, TOKEN), given


def test_allowed_origins_name_hosts_too_and_other_addresses_take_any():
    hosts = own_hosts("127.0.0.1", 8000, ["https://proxy.example:443", "http://other.example:8080"])
    assert hosts is not None
    assert {"proxy.example", "proxy.example:443", "other.example:8080", "[::1]:8000"} <= hosts
    assert "other.example" not in hosts
    assert own_hosts("0.0.0.0", 8000, []) is None and host_allowed("anything", None)
    assert "localhost" in own_hosts("127.0.0.1", 80, [])  # port 80 is left out of the header


# ---- what the server's own page sends ------------------------------------------------------------


class Message:
    def __init__(self, data: str) -> None:
        from aiohttp import WSMsgType

        self.type, self.data = WSMsgType.TEXT, data


class Socket:
    """A browser's websocket: the messages it sends, and what the server sends back."""

    def __init__(self, *texts: str) -> None:
        self.texts, self.sent = list(texts), []

    def __aiter__(self):
        return self

    async def __anext__(self) -> Message:
        if not self.texts:
            raise StopAsyncIteration
        return Message(self.texts.pop(0))

    async def send_json(self, doc) -> None:
        self.sent.append(doc)


class App:
    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []
        self.keys: list[bytes] = []

    async def set_terminal_size(self, width: int, height: int) -> None:
        self.sizes.append((width, height))

    async def send_bytes(self, data: bytes) -> None:
        self.keys.append(data)


def test_malformed_messages_are_dropped_and_the_session_goes_on():
    from tinytui.cli.serve_command import relay

    socket, app = (
        Socket(
            '["resize", {"width": Infinity, "height": 24}]',  # int(inf): OverflowError
            '["resize", {"width": 1e999, "height": 24}]',
            "[" * 100_000 + "]" * 100_000,  # json.loads: RecursionError
            '["resize", {"width": "wide"}]',
            "not json",
            '{"stdin": "n"}',
            '["stdin", "n"]',
            '["resize", {"width": 100, "height": 30}]',
            '["ping", 7]',
        ),
        App(),
    )
    asyncio.run(relay(socket, app))
    assert app.keys == [b"n"] and app.sizes == [(100, 30)] and socket.sent == [["pong", 7]]
