"""Server-Sent Events: the live snapshot pushed to every phone.

Each message is a full public snapshot with an id ``<boot>-<n>``. A phone that
reconnects (the browser sends ``Last-Event-ID`` by itself; the page's script
passes ``?last_id=`` when it has to open a new stream after sleeping) gets the
messages it missed from the hub's backlog, or just the current snapshot.
One thread per open stream: fine for a table's handful of phones under a
threaded server.
"""

from __future__ import annotations

import time

from flask import Blueprint, Response, current_app, request

bp = Blueprint("stream", __name__)


@bp.get("/stream")
@bp.get("/api/v1/stream")
def events():
    hub = current_app.extensions["briscola"]["hub"]
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    lifetime = float(current_app.config["SSE_MAX_SECONDS"])
    last_id = request.headers.get("Last-Event-ID") or request.args.get("last_id")
    # Each stream holds a server thread: cap them so that a runaway client cannot
    # exhaust the Pi (browsers retry after the Retry-After delay).
    if not hub.open_stream(int(current_app.config["SSE_MAX_CLIENTS"])):
        response = Response("too many open streams, try again shortly\n", 503,
                            mimetype="text/plain")
        response.headers["Retry-After"] = "5"
        return response

    def generate():
        deadline = time.monotonic() + lifetime
        yield b"retry: 2000\n\n"
        missed, seen = hub.catch_up(last_id)
        for message in missed:
            yield message.wire
        while not hub.closed and time.monotonic() < deadline:
            fresh = hub.wait(seen, min(keepalive, max(0.0, deadline - time.monotonic())))
            if not fresh:
                # A named ping the page can watch to notice a dead connection.
                yield f"event: ping\ndata: {int(time.time())}\n\n".encode()
                continue
            for message in fresh:
                yield message.wire
            seen = fresh[-1].n

    response = Response(generate(), mimetype="text/event-stream")
    response.call_on_close(hub.close_stream)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response
