"""Announce the dashboard on the local network as ``briscola.local`` (mDNS/zeroconf).

Optional: without the ``zeroconf`` package this does nothing and phones use the
address or the QR code.
"""

from __future__ import annotations

import logging
import socket

log = logging.getLogger(__name__)


class Announcer:
    """Registers an ``_http._tcp`` service and the host name; ``close()`` withdraws them."""

    def __init__(self, port: int, address: str, name: str = "briscola") -> None:
        self.port, self.address, self.name = port, address, name
        self._zc = None
        self._info = None

    def start(self) -> bool:
        try:
            from zeroconf import ServiceInfo, Zeroconf
        except ImportError:
            log.info("zeroconf is not installed: the dashboard is not announced by mDNS")
            return False
        info = ServiceInfo(
            "_http._tcp.local.", "Briscola table._http._tcp.local.",
            addresses=[socket.inet_aton(self.address)], port=self.port,
            properties={"path": "/"}, server=f"{self.name}.local.")
        try:
            zc = Zeroconf()
            zc.register_service(info, allow_name_change=True)
        except OSError as exc:
            log.warning("cannot announce the dashboard by mDNS: %s", exc)
            return False
        self._zc, self._info = zc, info
        return True

    @property
    def url(self) -> str:
        return f"http://{self.name}.local:{self.port}/"

    def close(self) -> None:
        if self._zc is not None:
            self._zc.unregister_service(self._info)
            self._zc.close()
            self._zc = None


__all__ = ["Announcer"]
