"""The QR code that opens the dashboard, for the page and for the table's display.

Drawn with ``segno`` (pure Python, no network). Without it the page simply
shows the address as text.
"""

from __future__ import annotations

import functools
import io
import socket


def lan_address() -> str | None:
    """This machine's address on the local network (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 1))  # UDP connect only picks the route
            address = s.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


ANY_ADDRESS = ("0.0.0.0", "::", "")


def phone_url(host: str, port: int, scheme: str = "http") -> str:
    """The address a phone opens for a server listening on ``host:port``: for all
    interfaces (0.0.0.0), this machine's LAN address (127.0.0.1 when it has no network);
    any other host as it is, so ``--host 127.0.0.1`` shows 127.0.0.1, which is the only
    address that server answers on."""
    shown = (lan_address() or "127.0.0.1") if host in ANY_ADDRESS else host
    if ":" in shown:  # IPv6
        shown = f"[{shown}]"
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{shown}{'' if port == default else f':{port}'}/"


@functools.lru_cache(maxsize=8)
def qr_svg(url: str, standalone: bool = False) -> str | None:
    """An SVG QR code for ``url`` to put in a page, or with ``standalone`` a file of its
    own (with the SVG namespace, without which a browser shows it as XML text); None
    when segno is not installed."""
    try:
        import segno
    except ImportError:
        return None
    code = segno.make(url, error="m")
    if standalone:
        out = io.BytesIO()
        code.save(out, kind="svg", scale=8, border=2, dark="#111", light="#fff")
        return out.getvalue().decode("utf-8")
    return code.svg_inline(scale=8, border=2, dark="#111", light="#fff", omitsize=True)


def qr_rows(url: str) -> list[list[bool]] | None:
    """The QR code as rows of dark (True) modules, for a small display; None without segno."""
    try:
        import segno
    except ImportError:
        return None
    return [[bool(m) for m in row] for row in segno.make(url, error="m").matrix]


__all__ = ["lan_address", "phone_url", "qr_svg", "qr_rows"]
