"""Scale benchmark of the streaming and Dask engines (docs/reproductions.md section 5).

The corpus is generated on the fly and never stored: document ``i`` is text ``i mod P`` of a
pool (shuffled once, seed 0) of the IMDb (50,000 reviews, labels pos/neg) and 20 Newsgroups
(18,846 messages, 20 newsgroup labels) texts. Every repetition ``r = i // P > 0`` is lightly
perturbed: about one word in 17 dropped and one pair of adjacent words swapped, both chosen
by ``r``. Perturbation only removes or reorders words, so the vocabulary is fixed (a subset
of the pool's) whatever the corpus size: the setting in which streamed memory must not grow.

Each measurement runs in a fresh Python process, so its peak RSS (``VmHWM``) is its own:

* ``stream`` at 100k and 1M documents (exact mode, one pass), and ``hashing`` (one pass,
  2**18 buckets) at the same sizes: documents per second, peak RSS, and the RSS after loading
  the pool (the fixed cost every run pays);
* ``memory`` (``Counts.from_texts`` on the whole list) against ``dask`` (a LocalCluster of 2
  single-threaded worker processes, 2 partitions per worker) at ``--compare-size`` documents,
  with a SHA-256 of the counts to show both are identical.

Results go to ``bench/results/scale.json`` (one entry per measurement, written atomically;
a rerun skips measurements already there unless ``--force``). Run::

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/scale.py
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
from _common import peak_rss_bytes  # bench/ is on the path (__main__ below)

from textsift.engines.readers import Chunk

RESULTS = Path(__file__).with_name("results") / "scale.json"
POOL_FILES = [("imdb/train.jsonl.gz", "label"), ("imdb/test.jsonl.gz", "label"),
              ("20newsgroups/train.jsonl.gz", "label"), ("20newsgroups/test.jsonl.gz", "label")]


# --------------------------------------------------------------------------- the corpus
@lru_cache(maxsize=1)
def pool(data: str) -> tuple[list[str], np.ndarray]:
    texts, labels = [], []
    for name, field in POOL_FILES:
        with gzip.open(Path(data) / name, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                texts.append(r["text"])
                labels.append(r[field])
    order = np.random.default_rng(0).permutation(len(texts))  # mix IMDb and 20NG in any prefix
    return [texts[i] for i in order], np.array(labels, dtype=object)[order]


def perturb(text: str, r: int) -> str:
    """Copy ``r`` of a text: unchanged for ``r = 0``; otherwise drop the words at positions
    ``j`` with ``(j * 2654435761 + r) % 17 == 0`` and swap one adjacent pair.

    Those positions are every 17th from the first one ``j0`` (17 is prime and does not divide
    2654435761), so they are dropped by one slice deletion instead of a test per word."""
    if r == 0:
        return text
    words = text.split()
    del words[_first_dropped(r)::17]
    if len(words) > 1:
        k = (r * 40503) % (len(words) - 1)
        words[k], words[k + 1] = words[k + 1], words[k]
    return " ".join(words)


@lru_cache(maxsize=17)
def _first_dropped(r: int) -> int:
    return next(j for j in range(17) if (j * 2654435761 + r) % 17 == 0)


class Synthetic:
    """Documents ``start .. stop-1`` of the generated corpus, ``chunk_size`` at a time.
    Picklable: a Dask worker rebuilds the pool from ``data`` (once per process)."""

    def __init__(self, data, start, stop, chunk_size=10_000):
        self.data, self.start, self.stop, self.chunk_size = str(data), start, stop, chunk_size

    def __call__(self, bad_lines=None):
        texts, labels = pool(self.data)
        P = len(texts)
        for lo in range(self.start, self.stop, self.chunk_size):
            idx = np.arange(lo, min(lo + self.chunk_size, self.stop))
            yield Chunk([perturb(texts[i % P], i // P) for i in idx], labels[idx % P])


# --------------------------------------------------------------------------- one measurement
def digest(counts) -> str:
    """SHA-256 (16 hex digits) of the counts' values, whatever their dtypes: document counts
    as int64, term frequencies as float64 (equal counts held as int32 and as int64 hashed
    differently before, so the count bench's 100,000-document row showed two digests for
    identical counts)."""
    h = hashlib.sha256()
    for a in (counts.classes.astype(str), counts.class_sizes.astype(np.int64),
              np.asarray(counts.doc_counts, dtype=np.int64),
              np.asarray(counts.term_freq, dtype=np.float64), counts.feature_names.astype(str)):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def peak_rss_mib() -> float:
    return peak_rss_bytes() / 2**20


def cpu_seconds() -> float:
    """User + system CPU time of this process: unlike wall time, it does not grow when other
    jobs share the cores."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _worker_stats():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, peak_rss_mib()


def measure(kind: str, n: int, data: str, chunk_size: int, workers: int) -> dict:
    from textsift.counting.counts import Counts
    from textsift.engines import count_exact, count_hashed

    pool(data)
    base_rss = peak_rss_mib()
    src = Synthetic(data, 0, n, chunk_size)
    extra = {}
    t, cpu = time.perf_counter(), cpu_seconds()
    if kind == "stream":
        counts = count_exact(src)
    elif kind == "hashing":
        counts = count_hashed(src)
    elif kind == "memory":
        texts, labels = [], []
        for chunk in src():
            texts.extend(chunk.texts)
            labels.append(chunk.labels)
        t, cpu = time.perf_counter(), cpu_seconds()  # generating the list is not counting
        counts = Counts.from_texts(texts, np.concatenate(labels))
    elif kind == "dask":
        from textsift.engines.dask import cluster_client, count_dask

        n_parts = 2 * workers
        bounds = np.linspace(0, n, n_parts + 1).astype(int)
        parts = [Synthetic(data, a, b, chunk_size)
                 for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        with cluster_client(n_workers=workers, processes=True) as client:
            client.run(pool, data)  # start-up and the pool are not counting
            before = client.run(_worker_stats)
            t, cpu = time.perf_counter(), cpu_seconds()
            counts = count_dask(parts, client=client)
            seconds, cpu = time.perf_counter() - t, cpu_seconds() - cpu
            after = client.run(_worker_stats)
        extra["worker_cpu_seconds"] = round(sum(after[w][0] - before[w][0] for w in after), 2)
        extra["worker_peak_rss_mib"] = sorted(round(v[1], 1) for v in after.values())
    else:
        raise ValueError(kind)
    if kind != "dask":
        seconds, cpu = time.perf_counter() - t, cpu_seconds() - cpu
    out = {"kind": kind, "n_docs": n, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
           "docs_per_second": round(n / seconds), "peak_rss_mib": round(peak_rss_mib(), 1),
           "pool_rss_mib": round(base_rss, 1), "n_terms": counts.n_terms,
           "n_classes": counts.n_classes, "counted_docs": counts.n_docs,
           "load_average": round(os.getloadavg()[0], 1), **extra}
    if counts.feature_names is not None:
        out["digest"] = digest(counts)
    return out


# --------------------------------------------------------------------------- driver
def _save(results: dict) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=2) + "\n")
    os.replace(tmp, RESULTS)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--modes", nargs="+", default=["stream", "hashing"])
    ap.add_argument("--compare-size", type=int, default=300_000,
                    help="documents for the memory-vs-dask comparison (0 to skip)")
    ap.add_argument("--chunk-size", type=int, default=10_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--force", action="store_true", help="re-run measurements already saved")
    ap.add_argument("--one", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        res = measure(args.one[0], int(args.one[1]), args.data, args.chunk_size, args.workers)
        print(json.dumps(res))
        return
    from rich.console import Console

    console = Console(stderr=True)
    if not (Path(args.data) / "imdb").is_dir():
        sys.exit(f"{args.data}: no imdb/ folder; pass --data or set TEXTSIFT_DATA")
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    plan = [(m, n) for m in args.modes for n in sorted(args.sizes)]
    if args.compare_size:  # right after the first mode, the one the issue asks about first
        k = len(args.sizes)
        plan[k:k] = [("memory", args.compare_size), ("dask", args.compare_size)]
    for kind, n in plan:
        key = f"{kind}-{n}-chunk{args.chunk_size}" + (f"-w{args.workers}" if kind == "dask" else "")
        if key in results and not args.force:
            console.print(f"[dim]{key}: done before, skipped[/]")
            continue
        with console.status(f"{key}: running"):
            out = subprocess.run(
                [sys.executable, __file__, "--one", kind, str(n), "--data", args.data,
                 "--chunk-size", str(args.chunk_size), "--workers", str(args.workers)],
                capture_output=True, text=True)
        if out.returncode:
            console.print(f"[red]{key} failed[/]\n{out.stderr[-2000:]}")
            continue
        results[key] = json.loads(out.stdout.strip().splitlines()[-1])
        _save(results)
        console.print(f"{key}: {results[key]}")
    report(results, args.chunk_size, args.workers, args.compare_size)


def report(results: dict, chunk_size: int, workers: int, compare: int) -> None:
    rows = [r for r in results.values() if r["kind"] in ("stream", "hashing")]
    print("| engine | documents | wall s | CPU s | documents/s (wall) | documents per CPU s "
          "| peak RSS (MiB) | RSS after pool (MiB) | load average |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in sorted(rows, key=lambda r: (r["kind"], r["n_docs"])):
        print(f"| {r['kind']} | {r['n_docs']:,} | {r['seconds']} | {r['cpu_seconds']} | "
              f"{r['docs_per_second']:,} | {r['n_docs'] / r['cpu_seconds']:,.0f} | "
              f"{r['peak_rss_mib']} | {r['pool_rss_mib']} | {r['load_average']} |")
    for kind in ("stream", "hashing"):
        by_n = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["n_docs"])
        if len(by_n) >= 2:
            a, b = by_n[0], by_n[-1]
            print(f"{kind}: x{b['n_docs'] / a['n_docs']:g} documents -> peak RSS "
                  f"x{b['peak_rss_mib'] / a['peak_rss_mib']:.3f}, documents per CPU s "
                  f"x{(b['n_docs'] / b['cpu_seconds']) / (a['n_docs'] / a['cpu_seconds']):.3f}")
    mem = results.get(f"memory-{compare}-chunk{chunk_size}")
    dsk = results.get(f"dask-{compare}-chunk{chunk_size}-w{workers}")
    if mem and dsk:
        print(f"memory: {mem['seconds']} s wall, {mem['cpu_seconds']} CPU s, peak RSS "
              f"{mem['peak_rss_mib']} MiB; dask ({workers} workers): {dsk['seconds']} s wall, "
              f"{dsk['worker_cpu_seconds']} worker CPU s, worker peak RSS "
              f"{dsk['worker_peak_rss_mib']} MiB, client {dsk['peak_rss_mib']} MiB; wall ratio "
              f"dask/memory {dsk['seconds'] / mem['seconds']:.2f}; identical counts (SHA-256): "
              f"{mem['digest'] == dsk['digest']}")


if __name__ == "__main__":
    # run as the importable module ``scale`` so that Dask workers unpickle ``scale.Synthetic``
    # by reference (and keep one pool per process)
    sys.path.insert(0, str(Path(__file__).parent))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])])
    import scale

    scale.main()
