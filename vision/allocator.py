"""Keep the C heap's freed memory for the next frame (glibc's malloc only).

Every frame the vision pipeline allocates and frees tens of megabytes of images
(OpenCV's and numpy's buffers, a few hundred kilobytes to a few megabytes each).
glibc serves a block over its mmap threshold (128 KB at first) with fresh pages
and gives them back when it is freed, and trims the heap's free top as soon as it
passes 128 KB: so each frame faults the same memory in again, page by page.
Keeping it costs no more than the peak the pipeline reaches anyway, and a photo
frame takes about 6% less time on the development machine (the median of each
frame's best of three, ``benchmarks/bench_vision_speed.py`` scenes, three rounds
each way: 44.3 -> 41.7 ms).

    from vision.allocator import keep_freed_memory
    keep_freed_memory()  # once, at start-up
"""

from __future__ import annotations

import ctypes
import ctypes.util

# mallopt(3) parameters (malloc.h).
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
MMAP_THRESHOLD = 32 << 20  # glibc's ceiling on 64-bit: a 1080x1920 frame is 6 MB
TRIM_THRESHOLD = 1 << 30  # never give the heap's top back
TOP_PAD = 64 << 20  # grow the heap a frame's worth at a time


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep freed blocks in the heap; False where there is no
    glibc (macOS, musl) or it refuses, and nothing changes."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return all([mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1,
                mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1,
                mallopt(M_TOP_PAD, TOP_PAD) == 1])
