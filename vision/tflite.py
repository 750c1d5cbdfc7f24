"""Load a TFLite interpreter from whichever runtime is installed.

``ai-edge-litert`` is the maintained package on desktops and 64-bit Pis;
Raspberry Pi OS images may ship ``tflite_runtime`` instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """TFLite's C++ core writes ``INFO: Created TensorFlow Lite XNNPACK delegate for CPU.``
    straight to file descriptor 2 when an interpreter is made, past Python's sys.stderr
    and with no option to turn it off: point fd 2 at /dev/null for that moment only."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no fd 2 (a daemon): nothing to silence
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def make_interpreter(model_path: str | Path, threads: int = 1) -> Any:
    """A ready (tensors allocated) interpreter for ``model_path``."""
    try:
        from ai_edge_litert.interpreter import Interpreter
    except ImportError:
        try:
            from tflite_runtime.interpreter import Interpreter
        except ImportError as exc:
            raise ImportError(
                "no TFLite runtime: pip install ai-edge-litert (or tflite-runtime)") from exc
    with _stderr_silenced():
        interp = Interpreter(model_path=str(model_path), num_threads=threads)
        interp.allocate_tensors()
    return interp
