"""Server-Sent Events: the live snapshot pushed to every phone.

Each message is a full public snapshot (through ``state.phone_view``) with an id
``<boot>-<n>``. A phone that reconnects (the browser sends ``Last-Event-ID`` by
itself; the page's script passes ``?last_id=`` when it has to open a new stream
after sleeping) gets the current snapshot only, never past ones: a run of past
snapshots would rebuild the captured cards and the score. Whatever the id says
(an old boot, 0, garbage, thousands of digits) it is compared, never parsed.
One thread per open stream: fine for a table's handful of phones under a
threaded server; a cap on all streams and a lower one per client address
(``SSE_MAX_CLIENTS``, ``SSE_MAX_PER_CLIENT``) keep one client from holding them all.
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
    who = request.remote_addr or ""
    # Each stream holds a server thread: cap them so that a runaway client cannot
    # exhaust the Pi, and cap each address below that so that one client cannot lock
    # every other phone out (browsers retry after the Retry-After delay).
    refused = hub.admit_stream(who, int(current_app.config["SSE_MAX_CLIENTS"]),
                               int(current_app.config["SSE_MAX_PER_CLIENT"]))
    if refused is not None:
        if refused == "client":
            text = (f"too many open streams from this address (at most "
                    f"{current_app.config['SSE_MAX_PER_CLIENT']}): close another tab of the "
                    "table and try again\n")
            response = Response(text, 429, mimetype="text/plain")
        else:
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
    response.call_on_close(lambda: hub.close_stream(who))
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response
