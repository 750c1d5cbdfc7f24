"""Load a TFLite interpreter from whichever runtime is installed.

``ai-edge-litert`` is the maintained package on desktops and 64-bit Pis;
Raspberry Pi OS images may ship ``tflite_runtime`` instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
    interp = Interpreter(model_path=str(model_path), num_threads=threads)
    interp.allocate_tensors()
    return interp
