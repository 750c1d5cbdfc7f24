"""A real Mosquitto for the tests: the shipped deploy/mosquitto configuration, adapted
to a free port and a temporary folder, started and stopped by the test; and a TCP
proxy that can cut one table off the network."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parent.parent / "deploy" / "mosquitto"
CLUB = "circolo"
PASSWORD = "secret-{user}"  # each user's password in the tests


def need_mosquitto() -> str:
    path = shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/sbin/mosquitto") if os.path.exists(p)), None)
    if path is None or shutil.which("mosquitto_passwd") is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto: the README's "
                    "test command installs it)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """Mosquitto on 127.0.0.1:<free port> with the deploy config's users and ACL."""

    def __init__(self, folder: Path, users: list[str], extra_acl: str = "") -> None:
        self.binary = need_mosquitto()
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        conf = (DEPLOY / "briscola.conf").read_text()
        conf = conf.replace("listener 1883", f"listener {self.port} 127.0.0.1")
        conf = conf.replace("/etc/mosquitto/briscola.passwd", str(folder / "passwd"))
        conf = conf.replace("/etc/mosquitto/briscola.acl", str(folder / "acl"))
        conf = conf.replace("/var/lib/mosquitto/", f"{folder}/")
        if os.geteuid() == 0:
            conf += "user root\n"  # else it drops to the mosquitto user: no temp folder
        conf += f"log_dest file {folder / 'mosquitto.log'}\nlog_type error\nlog_type warning\n"
        (folder / "mosquitto.conf").write_text(conf)
        (folder / "acl").write_text((DEPLOY / "briscola.acl").read_text() + extra_acl)
        passwd = folder / "passwd"
        for i, user in enumerate(users):
            subprocess.run(["mosquitto_passwd", *(["-c"] if i == 0 else []), "-b",
                            str(passwd), user, PASSWORD.format(user=user)],
                           check=True, capture_output=True)
        passwd.chmod(0o600)
        self.proc: subprocess.Popen | None = None

    def start(self) -> Broker:
        self.proc = subprocess.Popen([self.binary, "-c", str(self.folder / "mosquitto.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.proc.stderr.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start listening")

    def stop(self) -> None:
        """A clean stop (SIGTERM): Mosquitto saves its sessions and retained messages."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


class Proxy:
    """127.0.0.1:<port> forwarded to the broker; ``cut()`` drops every connection and
    refuses new ones (a table whose network is gone), ``mend()`` lets them through."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.open = True
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=2)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        self.open = False
        with self._lock:
            conns, self._conns = self._conns, []
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass

    def mend(self) -> None:
        self.open = True

    def close(self) -> None:
        self.cut()
        self.sock.close()
