"""The reveal, as a phone sees the demo: Debian's Chromium at 390x844 follows the real
``briscola-table demo`` (vision, referee, dashboard) through a whole hand. The reveal
stays for the configured pause with a countdown, and goes only when the next hand
starts; then the page scrolls back to the new hand's heading and the finished hand is
one tap away."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("BRISCOLA_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAUSE = 3  # seconds: the demo's --pause

sync_api = pytest.importorskip("playwright.sync_api",
                               reason="the playwright Python package is not installed")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)",
                allow_module_level=True)

# What the page shows now, read from the DOM (the page's script keeps no globals).
LOOK = """() => {
  const line = document.getElementById("status-line");
  const last = document.getElementById("last-hand");
  const cd = document.getElementById("countdown");
  return {status: line ? line.textContent : "",
          reveal: !document.getElementById("reveal").hidden,
          banner: (document.getElementById("banner") || {}).textContent || "",
          countdown: cd.hidden ? "" : cd.textContent,
          last: last ? last.getAttribute("href") : null,
          statusTop: document.getElementById("status").getBoundingClientRect().top,
          scrollY: window.scrollY};
}"""


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return s.getsockname()[1]


def test_the_reveal_stays_through_the_pause_and_goes_when_the_next_hand_starts(tmp_path):
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), XDG_DATA_HOME=str(tmp_path), LANG="C.UTF-8")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        context = browser.new_context(viewport={"width": 390, "height": 844},
                                      device_scale_factor=2, locale="en-GB", is_mobile=True,
                                      has_touch=True)
        page = context.new_page()
        proc = subprocess.Popen(
            [sys.executable, "-m", "table_controller", "demo", "--no-emulator", "--seed", "5",
             "--match", "3", "--fast", "--pause", str(PAUSE), "--host", "127.0.0.1",
             "--port", str(port)],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            for line in proc.stdout:
                if "dashboard:" in line:
                    break
            url = f"http://127.0.0.1:{port}/"
            page.goto(url)
            samples = []
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                look = page.evaluate(LOOK)
                samples.append((time.monotonic(), look))
                if look["status"].startswith("Hand 2") and samples[-1][0] - next(
                        (t for t, s in samples if s["status"].startswith("Hand 2")),
                        samples[-1][0]) > 1.5:
                    break  # the next hand has been on for a while: the scroll is done
                time.sleep(0.03)
        finally:
            proc.send_signal(signal.SIGINT)
            out = proc.communicate(timeout=60)[0]
            browser.close()
    hand1 = [(t, s) for t, s in samples if s["status"].startswith("Hand 1")]
    hand2 = [(t, s) for t, s in samples if s["status"].startswith("Hand 2")]
    assert hand1 and hand2, out
    shown = [t for t, s in hand1 if s["reveal"]]
    assert shown, "the reveal never appeared"
    first_shown, next_hand = shown[0], hand2[0][0]
    # From its first appearance the reveal stays, sample after sample, until hand 2.
    assert all(s["reveal"] for t, s in hand1 if t >= first_shown)
    assert next_hand - first_shown >= PAUSE - 0.3, (first_shown, next_hand)
    assert "Bruno wins the hand!" in {s["banner"] for _t, s in hand1}
    # The countdown during the pause: whole seconds, the singular at the end.
    counts = [s["countdown"] for _t, s in hand1 if s["countdown"]]
    assert f"The next hand in {PAUSE} seconds" in counts, counts
    assert "The next hand in 1 second" in counts, counts
    # The reveal is scrolled into view, then the new hand's heading when it starts.
    assert max(s["scrollY"] for _t, s in hand1) > 100
    late = hand2[-1][1]
    assert not late["reveal"] and not late["countdown"]
    assert 0 <= late["statusTop"] < 844 and late["scrollY"] < 100, late
    assert all(not s["reveal"] for _t, s in hand2)
    assert late["last"] and late["last"].endswith("/hands/0")  # one tap away
