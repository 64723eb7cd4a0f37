"""`tinytui serve`: the debugger in a browser, through textual-serve, on this machine only by default.

Each browser tab gets its own `python -m tinytui …` process with the options given here, so recordings
(--record) and screenshots are written on the server's side, in the folder the server was started in.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import socket
import sys
import tempfile
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
# the options a served app takes from the command line (store_true ones carry no value)
FORWARDED = ("model", "prompt", "target", "lr", "theme", "record")
FLAGS = ("no_mask", "no_pe", "large")


def add_parser(sub, run_options: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "serve",
        parents=[run_options],
        help="serve the debugger to a web browser (loopback only unless --host says otherwise)",
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    # SUPPRESS: `tinytui --theme light serve` keeps the theme given before the subcommand
    p.add_argument(
        "--theme", metavar="NAME", default=argparse.SUPPRESS, help="colour theme of the served app"
    )
    p.add_argument(
        "--record", metavar="FILE", default=argparse.SUPPRESS, help="record each browser session to FILE"
    )
    p.add_argument(
        "--large", action="store_true", default=argparse.SUPPRESS, help="serve the presenter view (z toggles)"
    )
    return p


def app_command(args: argparse.Namespace) -> str:
    """The command each browser tab runs: this Python, this tinytui, the options given to serve."""
    parts = [sys.executable, "-m", "tinytui"]
    for name in FORWARDED:
        value = getattr(args, name, None)
        if value is not None:
            parts += [f"--{name.replace('_', '-')}", str(value)]
    parts += [f"--{name.replace('_', '-')}" for name in FLAGS if getattr(args, name, False)]
    return shlex.join(parts)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_port(host: str, port: int) -> str | None:
    """None when host:port can be listened on, else the one-line reason."""
    if not 1 <= port <= 65535:
        return f"--port: {port} is not a port (1–65535)"
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        return f"--host: cannot use {host!r} ({exc})"
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(address)
        except OSError as exc:
            return f"--port: {host}:{port} is not free ({exc.strerror or exc}); choose another with --port"
    return None


def _offline_templates() -> Path:
    """textual-serve's page without its web-font link: nothing the page loads leaves this machine."""
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
    folder = Path(tempfile.mkdtemp(prefix="tinytui-serve-"))
    (folder / "app_index.html").write_text("".join(kept), encoding="utf-8")
    return folder


def run(args: argparse.Namespace, out, err) -> int:
    why = check_port(args.host, args.port)
    if why:
        print(f"tinytui: error: {why}", file=err)
        return 2
    if not is_loopback(args.host):
        print(
            f"tinytui: warning: serving on {args.host}, not loopback: anyone who can reach this machine "
            "can use the debugger (and write files where it runs)",
            file=err,
        )
    from textual_serve.server import Server

    url = f"http://[{args.host}]:{args.port}" if ":" in args.host else f"http://{args.host}:{args.port}"
    print(f"tinytui: serving the debugger at {url} (ctrl+c stops)", file=out, flush=True)
    server = Server(
        app_command(args),
        host=args.host,
        port=args.port,
        title="tinytui",
        public_url=url,
        templates_path=_offline_templates(),
    )
    server.serve()
    print("tinytui: stopped serving", file=out, flush=True)
    return 0
