"""`tinytui serve`: the debugger in a browser, through textual-serve, on this machine only by default.

Each browser tab gets its own `python -m tinytui …` process with the options given here, so recordings
(--record) and screenshots are written on the server's side, in the folder the server was started in.

What textual-serve leaves open is closed here (GuardedServer, a subclass of its Server):
- every request that can start or drive an app (the page, the websocket, a download) must carry this
  run's secret: a random token made at start and printed in the address to open (?token=…, as Jupyter
  does). The page gives its script the websocket's address with the token in its path (/ws/TOKEN: the
  script adds "?width=…&height=…" to the address it is given, so a query there would be cut), and
  sets the token as a cookie of this port (HttpOnly, SameSite=Strict) that its downloads and a reload
  carry. Another user of this machine, who can forge any Origin and Host, cannot start the debugger
  without it. Only /static/ (textual-serve's script, styles and fonts) is open to anyone.
- a websocket starts an app only when its Origin is this server's own page (or one named with
  --allow-origin): a browser sends the Origin of the page that opened the socket, so a page on another
  site open in the same browser cannot start the debugger and press its keys. Host names are not
  trusted for this (a name of the attacker's can resolve to 127.0.0.1); the address served is.
- on loopback, every request (the page, its scripts, downloads, the websocket) must name this server
  in its Host header (127.0.0.1, localhost or ::1 at its port, or the host of an --allow-origin): a
  page whose own name was made to resolve to 127.0.0.1 (DNS rebinding) sends its own name and is
  refused, so it can neither read the page nor fetch what an app offers for download.
- a terminal's size is capped (MAX_WIDTH x MAX_HEIGHT), at the start and at every resize: one request
  for 100000x100000 otherwise grows an app by gigabytes.
- when the server stops (ctrl+c, SIGTERM) every app it started is asked to quit, then ended.
- the page's template lives in a temporary folder removed when the server stops.
- --record NAME gives each browser session its own transcript, NAME-1.txt, NAME-2.txt, …
"""

from __future__ import annotations

import argparse
import contextlib
import hmac
import json
import os
import secrets
import shutil
import sys
from pathlib import Path
from urllib.parse import urlsplit

from tinytui.cli import refusal
from tinytui.cli.option_types import theme_name

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
MAX_WIDTH, MAX_HEIGHT = 1000, 500  # cells: far past any screen, and an app of that size stays small
QUIT_WAIT = 3.0  # seconds an app has to quit when asked, before it is terminated
# the options a served app takes from the command line (store_true ones carry no value)
FORWARDED = ("model", "prompt", "target", "lr", "theme", "norm", "positions")
FLAGS = ("no_mask", "no_pe", "large")
RECORD_HELP = (
    "record each browser session to its own transcript beside NAME: lesson.txt gives lesson-1.txt, "
    "lesson-2.txt, … (the first number whose files do not exist yet; no file is replaced)"
)


def add_parser(sub, run_options: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "serve",
        parents=[run_options],
        help="serve the debugger to a web browser (loopback only unless --host says otherwise)",
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--allow-origin",
        metavar="URL",
        action="append",
        type=origin_option,
        default=[],
        help="also let pages from URL (e.g. https://proxy.example) start the debugger; repeatable. "
        "Without it only the server's own page can",
    )
    # SUPPRESS: `tinytui --theme light serve` keeps the theme given before the subcommand
    p.add_argument(
        "--theme",
        metavar="NAME",
        type=theme_name,
        default=argparse.SUPPRESS,
        help="colour theme of the served app",
    )
    p.add_argument("--record", metavar="NAME", default=argparse.SUPPRESS, help=RECORD_HELP)
    p.add_argument(
        "--large", action="store_true", default=argparse.SUPPRESS, help="serve the presenter view (z toggles)"
    )
    return p


def app_command(args: argparse.Namespace, record: Path | None = None) -> str:
    """The command a browser tab runs: this Python, this tinytui, the options given to serve, and the
    session's own transcript when there is one."""
    import shlex

    parts = [sys.executable, "-m", "tinytui"]
    for name in FORWARDED:
        value = getattr(args, name, None)
        if value is not None:
            parts += [f"--{name.replace('_', '-')}", str(value)]
    if record is not None:
        parts += ["--record", str(record)]
    parts += [f"--{name.replace('_', '-')}" for name in FLAGS if getattr(args, name, False)]
    return shlex.join(parts)


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_port(host: str, port: int) -> str | None:
    """None when host:port can be listened on, else the one-line reason."""
    import socket

    if not 1 <= port <= 65535:
        return f"--port: {port} is not a port (1–65535)"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        return f"--host: cannot use {host!r} ({exc})"
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        if os.name == "posix":  # as aiohttp listens: a port left in TIME_WAIT by a stopped server is free
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            return f"--port: {host}:{port} is not free ({exc.strerror or exc}); choose another with --port"
    return None


# ---- origins -------------------------------------------------------------------------------------


def origin_of(url: str) -> str | None:
    """scheme://host:port of an http(s) URL or Origin header, lower-case, port always written; None
    for anything else (an empty or "null" Origin, another scheme, no host)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in ("http", "https") or not host:
        return None
    port = port or (443 if scheme == "https" else 80)
    return f"{scheme}://{_bracketed(host)}:{port}"


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def origin_option(value: str) -> str:
    """argparse type of --allow-origin."""
    origin = origin_of(value)
    if origin is None:
        raise argparse.ArgumentTypeError(f"{value!r} is not a web origin such as http://example.org:8080")
    return origin


def own_origins(host: str, port: int) -> set[str]:
    """The origins of the server's own page: the address it serves, and `localhost` when that is
    loopback (the same machine's name for it)."""
    hosts = {host.lower()} | ({"localhost"} if is_loopback(host) else set())
    return {f"{scheme}://{_bracketed(h)}:{port}" for h in hosts for scheme in ("http", "https")}


def own_hosts(host: str, port: int, allowed_origins: list[str]) -> set[str] | None:
    """The Host headers a request to this server may carry (lower-case, port written as a browser
    writes it: left out when it is the scheme's default), or None when any will do: a server on an
    address other than loopback is reached under names it cannot know."""
    if not is_loopback(host):
        return None
    hosts = {_bracketed(h) for h in (host.lower(), "localhost", "127.0.0.1", "::1")}
    out = {f"{h}:{port}" for h in hosts} | ({*hosts} if port == 80 else set())
    for origin in allowed_origins:  # a proxy that passes its own name on to this server
        parts = urlsplit(origin)
        default = 443 if parts.scheme == "https" else 80
        out.add(parts.netloc)
        if parts.port == default:
            out.add(_bracketed(parts.hostname or ""))
    return out


def host_allowed(header: str | None, hosts: set[str] | None) -> bool:
    return hosts is None or (header or "").strip().lower() in hosts


# ---- the run's secret ---------------------------------------------------------------------------

TOKEN_BYTES = 32  # random bytes in a run's token (43 URL-safe characters)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_cookie(port: int) -> str:
    """The cookie's name: one per port, so two servers on this machine do not replace each other's."""
    return f"tinytui-serve-{port}"


def token_matches(given: str | None, token: str) -> bool:
    """Whether given is the run's token, compared in constant time (no timing tells how much matched)."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), token.encode("utf-8"))


def page_url(url: str, token: str) -> str:
    """The address to open: the server's page with the run's token."""
    return f"{url}/?token={token}"


def clamped_size(width: int, height: int) -> tuple[int, int]:
    return min(max(width, 1), MAX_WIDTH), min(max(height, 1), MAX_HEIGHT)


def _number(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


# ---- recordings ----------------------------------------------------------------------------------


def check_record_name(name: str) -> str | None:
    """None when sessions can record beside name, else the one-line reason."""
    p = Path(name)
    if not p.name or p.name in (".", "..") or p.is_dir():
        return f"--record: {name!r} names a folder; give a file name such as lesson.txt"
    if p.suffix == ".jsonl":
        return f"--record: name the transcript, e.g. {p.with_suffix('.txt').name}"
    if not (p.parent if str(p.parent) else Path(".")).is_dir():
        return f"--record: the folder {str(p.parent)!r} does not exist"
    return None


def session_record(name: str, given: set[Path]) -> Path:
    """NAME-k (k from 1) with NAME's suffix: the first where nothing is at the transcript's or the
    .jsonl's name (not even a dangling link, which the app would refuse to record through) and that
    no other session of this server was given."""
    from tinytui.recording.recorder import events_path

    p = Path(name)
    k = 1
    while True:
        candidate = p.with_name(f"{p.stem}-{k}{p.suffix}")
        taken = os.path.lexists(candidate) or os.path.lexists(events_path(candidate))
        if candidate not in given and not taken:
            given.add(candidate)
            return candidate
        k += 1


# ---- the page ------------------------------------------------------------------------------------


SOCKET_ATTRIBUTE = 'data-session-websocket-url="{{ app_websocket_url }}"'
# the page's script opens the address it is given plus "?width=…&height=…": the token goes in its path
SOCKET_WITH_TOKEN = 'data-session-websocket-url="{{ app_websocket_url }}/{{ session_token }}"'


def write_offline_templates(folder: Path) -> None:
    """textual-serve's page without its web-font link (nothing the page loads leaves this machine), its
    websocket's address carrying the run's token (session_token, a global of the template's)."""
    from importlib.metadata import version

    import textual_serve

    page = (Path(textual_serve.__file__).parent / "templates" / "app_index.html").read_text(encoding="utf-8")
    kept: list[str] = []
    lines = page.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if lines[i].strip() == "<link" and i + 3 < len(lines) and "fonts.googleapis.com" in lines[i + 2]:
            i += 4  # the four lines of that one <link …/>
            continue
        if "fonts.googleapis.com" in lines[i]:
            i += 1
            continue
        kept.append(lines[i])
        i += 1
    text = "".join(kept)
    if text.count(SOCKET_ATTRIBUTE) != 1:  # a textual-serve whose page is not the one read here
        raise ValueError(
            f"textual-serve {version('textual-serve')}'s page names its websocket in a way tinytui does not "
            "know; install textual-serve 1.1"
        )
    (folder / "app_index.html").write_text(
        text.replace(SOCKET_ATTRIBUTE, SOCKET_WITH_TOKEN), encoding="utf-8"
    )


# ---- the server ----------------------------------------------------------------------------------


def ended_with_server() -> list[str]:
    """The words before an app's command that make the kernel end the app if the server dies without
    ending it (SIGKILL, a crash): util-linux's setpriv --pdeathsig, on Linux where it has the option;
    elsewhere nothing, and an app outlives a killed server until it next writes to its browser."""
    import subprocess

    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    if setpriv is None:
        return []
    try:
        done = subprocess.run([setpriv, "--pdeathsig", "TERM", "true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return []
    return [setpriv, "--pdeathsig", "TERM"] if done.returncode == 0 else []


def guarded_server(args: argparse.Namespace, url: str, token: str, templates: Path, err):
    """A textual-serve Server that lets only its own page, opened with token, start apps, caps their
    size, and ends them all when it stops (built here so textual-serve loads only for `serve`)."""
    import asyncio
    import logging
    import shlex

    import aiohttp_jinja2
    from aiohttp import WSCloseCode, web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    launcher = ended_with_server()

    class CappedApp(AppService):
        """One browser tab's app: its terminal never larger than MAX_WIDTH x MAX_HEIGHT, and ended
        for sure when asked to stop."""

        process: asyncio.subprocess.Process | None = None

        async def _open_app_process(self, width: int = 80, height: int = 24):
            # textual-serve starts the process here and keeps it to itself; the server needs it to
            # end an app that does not answer "quit"
            self.process = await super()._open_app_process(*clamped_size(width, height))
            return self.process

        async def set_terminal_size(self, width: int, height: int) -> None:
            await super().set_terminal_size(*clamped_size(width, height))

        async def end(self) -> None:
            """Ask the app to quit; after QUIT_WAIT seconds terminate it, after as many more kill it."""
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop(), QUIT_WAIT)
            process = self.process
            if process is None or process.returncode is not None:
                return
            for ending in (process.terminate, process.kill):
                try:
                    ending()
                    await asyncio.wait_for(process.wait(), QUIT_WAIT)
                    return
                except ProcessLookupError:
                    return
                except TimeoutError:
                    continue

    class GuardedServer(Server):
        def __init__(self) -> None:
            super().__init__(
                app_command(args),
                host=args.host,
                port=args.port,
                title="tinytui",
                public_url=url,
                templates_path=templates,
            )
            self.allowed = own_origins(args.host, args.port) | set(args.allow_origin)
            self.hosts = own_hosts(args.host, args.port, args.allow_origin)
            self.record_name: str | None = getattr(args, "record", None)
            self.records_given: set[Path] = set()
            self.running: dict[web.WebSocketResponse, CappedApp] = {}
            self.token = token
            self.cookie = token_cookie(args.port)

        async def _make_app(self) -> web.Application:
            # textual-serve's only way in to its routes: the guard below is added to every one of them,
            # and the websocket is also served at /ws/TOKEN, the address the page gives its script
            app = await super()._make_app()
            app.middlewares.append(self.guard)
            app.router.add_get("/ws/{token}", self.handle_websocket)
            aiohttp_jinja2.get_env(app).globals["session_token"] = self.token
            return app

        @web.middleware
        async def guard(self, request: web.Request, handler) -> web.StreamResponse:
            if not host_allowed(request.headers.get("Host"), self.hosts):
                raise web.HTTPForbidden(text="tinytui: this server is not reached under that name\n")
            if isinstance(request.match_info.route.resource, web.StaticResource):
                return await handler(request)  # textual-serve's script, styles, fonts: they drive nothing
            by_query = token_matches(request.query.get("token"), self.token)
            by_path = token_matches(request.match_info.get("token"), self.token)
            if not (by_query or by_path or token_matches(request.cookies.get(self.cookie), self.token)):
                raise web.HTTPForbidden(
                    text="tinytui: open the address `tinytui serve` printed, with its ?token=…\n"
                )
            response = await handler(request)
            if by_query and not response.prepared:  # the page: its downloads, a reload carry the cookie
                response.set_cookie(self.cookie, self.token, path="/", httponly=True, samesite="Strict")
                response.headers["Referrer-Policy"] = "no-referrer"  # the address holds the token
            return response

        def initialize_logging(self) -> None:
            super().initialize_logging()
            # aiohttp's access log writes every request's address, the page's ?token=… included, to the
            # server's output (perhaps a file others can read)
            logging.getLogger("aiohttp.access").addFilter(self.hide_token)

        def hide_token(self, record: logging.LogRecord) -> bool:
            if isinstance(record.msg, str) and self.token in record.msg:
                record.msg = record.msg.replace(self.token, "…")
            return True

        async def on_startup(self, app: web.Application) -> None:
            """Quiet: `tinytui serve` has said where it serves."""

        async def on_shutdown(self, app: web.Application) -> None:
            """Close every browser's socket and end every app this server started."""
            running = list(self.running.items())
            for websocket, _ in running:
                await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"the server stopped")
            await asyncio.gather(*(served.end() for _, served in running), return_exceptions=True)

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            origin = request.headers.get("Origin", "")
            if origin_of(origin) not in self.allowed:
                shown = origin.encode("ascii", "backslashreplace").decode()[:200] or "none"
                print(
                    f"tinytui: refused a browser session from origin {shown!r}: not this server's page "
                    "(--allow-origin URL allows another)",
                    file=err,
                    flush=True,
                )
                raise web.HTTPForbidden(text="tinytui: this page's origin may not start the debugger\n")
            width, height = clamped_size(
                _number(request.query.get("width"), 80), _number(request.query.get("height"), 24)
            )
            record = session_record(self.record_name, self.records_given) if self.record_name else None
            # exec: the shell becomes the app, so ending the process ends the app itself
            command = app_command(args, record)
            if os.name == "posix":
                command = shlex.join(["exec", *launcher]) + " " + command
            websocket = web.WebSocketResponse(heartbeat=15)
            await websocket.prepare(request)
            served = CappedApp(
                command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            self.running[websocket] = served
            try:
                await served.start(width, height)
                await relay(websocket, served)
            except asyncio.CancelledError:
                pass
            finally:
                await served.end()
                self.running.pop(websocket, None)
                await websocket.close()
            return websocket

    return GuardedServer()


async def relay(websocket, served) -> None:
    """A browser's messages (a websocket's) to its app (a CappedApp); anything malformed is dropped,
    never the session: not JSON or nested too deeply, a field missing or of the wrong type, a size
    that is no whole number (Infinity, 1e999)."""
    from aiohttp import WSMsgType

    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
            if kind == "stdin":
                await served.send_bytes(str(data).encode("utf-8"))
            elif kind == "resize":
                await served.set_terminal_size(int(data["width"]), int(data["height"]))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await served.blur()
            elif kind == "focus":
                await served.focus()
        except (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError):
            continue


def run(args: argparse.Namespace, out, err) -> int:
    import tempfile

    why = check_port(args.host, args.port)
    record = getattr(args, "record", None)
    why = why or (check_record_name(record) if record is not None else None)
    if why:
        refusal.say(why, err)
        return 2
    if not is_loopback(args.host):
        print(
            f"tinytui: warning: serving on {args.host}, not loopback: anyone who can reach this machine "
            "can use the debugger (and write files where it runs)",
            file=err,
        )
    url = f"http://[{args.host}]:{args.port}" if ":" in args.host else f"http://{args.host}:{args.port}"
    token = new_token()
    with tempfile.TemporaryDirectory(prefix="tinytui-serve-") as folder:
        try:
            write_offline_templates(Path(folder))
        except ValueError as exc:
            refusal.say(str(exc), err)
            return 2
        server = guarded_server(args, url, token, Path(folder), err)
        print(f"tinytui: serving the debugger at {page_url(url, token)} (ctrl+c stops)", file=out, flush=True)
        server.serve()
    print("tinytui: stopped serving", file=out, flush=True)
    return 0
