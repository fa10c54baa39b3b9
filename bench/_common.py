"""What the bench scripts share: the best-of-n timer and the ``--data`` option (the shared
corpora, ``$TEXTSIFT_DATA`` or ``../shared/data``). Imported as ``from _common import ...``:
a script run as ``python bench/x.py`` has ``bench/`` on its path."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def peak_rss_bytes() -> int:
    """This process's peak resident set in bytes: Linux's ``VmHWM``. Not ``ru_maxrss``, which
    a process started by ``subprocess`` inherits from the parent it was forked from (Linux
    keeps it across ``exec``): a "fresh process" then reports its parent's peak when that is
    larger, as the count bench's n-gram rows did when its parent held IMDb and LeNLP."""
    try:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM"))
    except (OSError, StopIteration):  # not Linux
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


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


def blas_threads() -> str:
    """The BLAS libraries loaded in this process and their threads (threadpoolctl), e.g.
    ``"openblas 2"``; ``"none loaded"`` before numpy's BLAS is."""
    from threadpoolctl import threadpool_info

    found = [f"{i.get('internal_api', i['user_api'])} {i['num_threads']}"
             for i in threadpool_info() if i["user_api"] == "blas"]
    return ", ".join(found) or "none loaded"


def conditions() -> str:
    """The machine's conditions of a measurement: load average (1, 5 min), cores, BLAS
    threads."""
    one, five, _ = os.getloadavg()
    return (f"load average {one:.1f} (1 min) / {five:.1f} (5 min), {os.cpu_count()} cores, "
            f"BLAS threads: {blas_threads()}")
