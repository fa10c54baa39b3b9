"""What the bench scripts share: the best-of-n timer and the ``--data`` option (the shared
corpora, ``$TEXTSIFT_DATA`` or ``../shared/data``). Imported as ``from _common import ...``:
a script run as ``python bench/x.py`` has ``bench/`` on its path."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def best_of(fn, repeat: int = 3) -> float:
    """The shortest wall time, in seconds, of ``repeat`` calls of ``fn()``."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def add_data_option(ap: argparse.ArgumentParser) -> None:
    """``--data DIR``: the folder of the shared corpora."""
    ap.add_argument("--data", type=Path,
                    default=Path(os.environ.get("TEXTSIFT_DATA", "../shared/data")))


def conditions() -> str:
    """The conditions of a run, to print beside its figures: the cores, the load average
    (1, 5 and 15 minutes) and the BLAS libraries' threads (threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_info

        blas = ", ".join(f"{i['internal_api']} {i['num_threads']} thread"
                         f"{'s' if i['num_threads'] != 1 else ''}"
                         for i in threadpool_info() if i.get("user_api") == "blas") or "none"
    except ImportError:
        blas = "unknown (threadpoolctl missing)"
    return ("{} cores, load average {:.1f} {:.1f} {:.1f}, BLAS: {}"
            .format(os.cpu_count(), *os.getloadavg(), blas))
