"""The dashboard's listening socket, bound before anything else starts.

werkzeug's ``make_server`` prints its own two lines and calls ``sys.exit(1)`` when
the port is taken; binding the socket here first (and handing werkzeug its ``fd``)
gives one clear message instead, or the next free port, and lets a command refuse
before it has opened or created any file.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from table_controller.engine.words import Say


class ListenError(OSError):
    """The dashboard cannot listen where it was asked to; the message (a ``Say``) says
    why."""


def listen(host: str, port: int, tries: int = 1) -> tuple[socket.socket, Say | None]:
    """A socket listening on ``host:port`` and, when that port was taken and ``tries``
    allowed the next ones, a sentence saying which port it is on instead (a ``Say``, for
    the terminal's language)."""
    last = min(port + max(tries, 1), 65536) - 1
    for candidate in range(port, last + 1):
        try:
            # create_server sets SO_REUSEADDR, as werkzeug does: a restart right after a
            # stop does not find the port "in use".
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            sock = socket.create_server((host, candidate), family=family)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                continue
            raise ListenError(Say("cannot listen on {address}: {problem}",
                                  address=f"{host}:{candidate}",
                                  problem=exc.strerror or exc)) from None
        note = None if candidate == port else \
            Say("port {port} is in use: the dashboard is on port {other}", port=port,
                other=candidate)
        return sock, note
    if last == port:
        raise ListenError(Say("port {port} is in use (another dashboard running?): give "
                              "another port", port=port))
    raise ListenError(Say("ports {first}-{last} are all in use: give another port",
                          first=port, last=last))


def make_server_on(sock: socket.socket, app: Any, **kwargs: Any) -> Any:
    """werkzeug's threaded server on an already listening ``sock`` (which it takes)."""
    from werkzeug.serving import make_server

    host, port = sock.getsockname()[:2]
    try:
        server = make_server(host, port, app, threaded=True, fd=sock.fileno(), **kwargs)
    finally:
        sock.close()  # werkzeug works on its own duplicate of the descriptor
    # What http.server's server_bind sets, which werkzeug skips for a given fd.
    server.server_name, server.server_port = host, port
    return server


__all__ = ["ListenError", "listen", "make_server_on"]
