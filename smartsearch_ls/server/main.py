"""`smartsearch-ls`: start the language server on stdio (default) or a TCP socket.

stdout is the LSP stream, so logs go to stderr or `--log-file` (rotated, so a server that runs for days
cannot fill a disk). pygls logs every message at INFO; its loggers stay at WARNING unless asked.

pygls, and with it `lsprotocol`, is imported in `main`, once attrs can reuse the methods an earlier start compiled
for `lsprotocol`'s classes (`attrs_code`), not when this module is.
"""

from __future__ import annotations

import argparse
import logging
import logging.handlers
import sys
from collections.abc import Sequence

from smartsearch_ls import __version__
from smartsearch_ls.cache_dir import default_cache_dir
from smartsearch_ls.server.attrs_code import reused_attrs_code

LOG_FILE_BYTES = 5 << 20
LOG_FILE_BACKUPS = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smartsearch-ls", description="SmartSearch language server.")
    parser.add_argument("--version", action="version", version=f"smartsearch-ls {__version__}")
    parser.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on a TCP socket instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=2087, help="TCP port (default 2087)")
    parser.add_argument("--log-file", help="write logs here (rotated at 5 MiB) instead of stderr")
    parser.add_argument(
        "--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="default INFO"
    )
    return parser


def _port(text: str) -> int:
    """A TCP port number, 1-65535, or argparse's usage error (exit 2) naming it."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (1-65535)")
    return port


class AnswersAreNotFaults(logging.Filter):
    """pygls logs every error a request is answered with at ERROR, traceback and all. InvalidParams, a failed judge
    or a cancelled search are answers the client gets, not faults of the server: one line each, at WARNING.
    Anything else (an internal error) keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        from pygls.exceptions import JsonRpcException, JsonRpcInternalError  # imported by then: pygls logs this

        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, JsonRpcException) and not isinstance(error, JsonRpcInternalError):
            request = record.args[0] if isinstance(record.args, tuple) and record.args else "?"  # pygls logs the id
            record.msg, record.args = "request %s answered with error %s: %s", (request, error.code, error.message)
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def configure_logging(level: str, log_file: str | None) -> None:
    handler: logging.Handler
    if log_file:
        handler = logging.handlers.RotatingFileHandler(
            log_file, maxBytes=LOG_FILE_BYTES, backupCount=LOG_FILE_BACKUPS, encoding="utf-8"
        )
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)
    if level != "DEBUG":
        logging.getLogger("pygls").setLevel(logging.WARNING)
    logging.getLogger("pygls.protocol.json_rpc").addFilter(AnswersAreNotFaults())
    for noisy in ("httpx", "httpx2", "httpcore", "openai", "watchdog"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    configure_logging(args.log_level, args.log_file)
    with reused_attrs_code(default_cache_dir()):
        from smartsearch_ls.server.app import SmartSearchServer
        from smartsearch_ls.server.features import register_all
        from smartsearch_ls.server.framing import Reframer

    server = SmartSearchServer()
    register_all(server)
    if args.tcp:
        try:
            server.start_tcp(args.host, args.port)
        except OSError as error:  # the port is taken, or the host is not this machine's
            sys.exit(f"smartsearch-ls: cannot listen on {args.host}:{args.port}: {error.strerror or error}")
    else:
        server.start_io(Reframer(sys.stdin.buffer))
    # LSP: `exit` after `shutdown` ends with 0, otherwise (no `shutdown`, or the client went away) with 1.
    sys.exit(0 if server.protocol.shut_down else 1)
