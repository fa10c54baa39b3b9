"""The count pass against scikit-learn's ``CountVectorizer``: speed and identity.

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/count.py [--skip-stream]
        [--only ngrams|korean|throughput] [--repeat 3]

In one run it prints, with the load average beside every figure:

* on 20 Newsgroups and IMDb (train + test each), default options: the MB of text (UTF-8) per
  CPU second and per wall second of the count pass (``count_terms``: the compiled kernel,
  ``textsift._count``) on one and on two threads, of ``CountVectorizer().fit_transform``
  and of the Rust counters that install from the registry (LeNLP; vtext has no wheel for
  this Python), the ratios against ``CountVectorizer`` (goal: 8x in CPU), the two-thread
  run's critical path (the larger of its two threads' CPU seconds: goal one thread's CPU /
  it >= 1.7),
  and whether vocabulary, order and matrix are ``CountVectorizer``'s; then a cProfile of
  ``vectorize`` on IMDb;

* on IMDb (train + test), for words, words and pairs (``ngram_range=(1, 2)``), character
  n-grams inside words (``char_wb``, 1-3) and character n-grams (``char``, 2-3): the wall and
  CPU seconds and the peak memory of ``CountVectorizer(...).fit_transform`` and of
  ``vectorize`` with the same options, each in a fresh process (peak RSS, and its rise above
  the process holding the loaded texts), the ratios (goals: >= 5 for words and pairs, >= 3
  for the character n-grams, with at most CountVectorizer's peak memory), and whether the
  two results are identical (SHA-256 of names and matrix);

* on the Korean NSMC sample (60,282 reviews), the count pass of each representation of
  ``examples/korean/``: words, words 1-2, char 2-3, char_wb 1-3 (each against
  ``CountVectorizer`` with the same options) and Kiwi's morphemes (``tokenizer="korean"``,
  the analyser's time included);
* on 20 Newsgroups (train + test, 18,846 messages) and IMDb (train + test, 50,000 reviews),
  default options: documents per second of ``CountVectorizer().fit_transform`` and of
  ``textsift.text.vectorize.vectorize``, the ratio (goal >= 5), and whether vocabulary, order and
  matrix are identical;
* the same stemmed: ``CountVectorizer`` with an analyzer that stems every token with
  ``snowballstemmer.stemmer("english")`` (what ``--stem`` did before, one call per token; the
  package hands out PyStemmer's C stemmer when PyStemmer is installed, as here), and on 20
  Newsgroups also with the pure-Python Snowball stemmer (what it did without PyStemmer),
  against ``vectorize(stem=True)`` (PyStemmer, once per word type), goal >= 5, and whether
  the stems and the matrix are identical;
* the 1M-document stream of ``bench/scale.py`` counted exactly (``count_exact``, a fresh
  process): CPU seconds and documents per CPU second against the run before this count pass
  (586.38 CPU s, ``bench/results/scale.json`` at commit 40d5904: ``CountVectorizer`` in two
  passes), goal >= 4x, and the SHA-256 of the counts, which must be that run's; and, in this
  run, the old two-pass ``CountVectorizer`` counting and the new one on a prefix
  (``--prefix-docs``): a ratio measured under the same load, and the same SHA.

Times are wall and CPU seconds of this process (all its threads), one run each (they are
long), after one warm-up call of each (imports, textsift's word-character table: 0.3 s once
per process); the CPU ratio is the one a busy shared machine distorts least.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _common import peak_rss_bytes  # bench/ is the script's path
from sklearn.feature_extraction.text import CountVectorizer

from textsift.text.vectorize import VectorizerOptions, build_vectorizer, vectorize

BEFORE = {"cpu_seconds": 586.38, "seconds": 1204.89, "digest": "dde3e0045118e252",
          "load_average": 11.1, "n_docs": 1_000_000}
CORPORA = {"20 Newsgroups": ["20newsgroups/train.jsonl.gz", "20newsgroups/test.jsonl.gz"],
           "IMDb": ["imdb/train.jsonl.gz", "imdb/test.jsonl.gz"]}


def load(data: Path, files) -> list[str]:
    texts = []
    for f in files:
        with gzip.open(data / f, "rt", encoding="utf-8") as fh:
            texts.extend(json.loads(line)["text"] for line in fh)
    return texts


def timed(fn):
    load0 = os.getloadavg()[0]
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return out, wall, cpu, (load0 + os.getloadavg()[0]) / 2


class PerTokenStemmer:
    """scikit-learn's analyzer, then a Snowball stemmer on every token: the one
    ``snowballstemmer.stemmer`` hands out, or the pure-Python one (``pure=True``)."""

    def __init__(self, pure: bool = False):
        import snowballstemmer
        from snowballstemmer.english_stemmer import EnglishStemmer

        self.base = CountVectorizer().build_analyzer()
        self.stemmer = EnglishStemmer() if pure else snowballstemmer.stemmer("english")

    def __call__(self, doc):
        return self.stemmer.stemWords(self.base(doc))


def same(X, names, Y, ref_names) -> bool:
    Y = sp.csr_matrix(Y)
    Y.sort_indices()
    return (list(names) == list(ref_names) and X.shape == Y.shape
            and np.array_equal(X.indptr, Y.indptr) and np.array_equal(X.indices, Y.indices)
            and np.array_equal(X.data, Y.data))


def corpus_rows(name: str, texts: list[str], pure: bool) -> None:
    n = len(texts)
    print(f"\n{name}: {n:,} documents, {sum(map(len, texts)) / 1e6:.0f} M characters")
    print("| count pass | wall s | CPU s | documents/s (wall) | ratio wall | ratio CPU "
          "| identical | load |")
    print("|---|---|---|---|---|---|---|---|")
    anchors = [("CountVectorizer", {}, VectorizerOptions()),
               ("CountVectorizer + snowballstemmer.stemmer per token (C)",
                {"analyzer": PerTokenStemmer()}, VectorizerOptions(stem=True))]
    if pure:
        anchors.append(("CountVectorizer + pure-Python Snowball per token",
                        {"analyzer": PerTokenStemmer(pure=True)}, VectorizerOptions(stem=True)))
    ours = {}
    for anchor, params, opts in anchors:
        vec = CountVectorizer(dtype=np.int32, **params)
        Y, w0, c0, l0 = timed(lambda vec=vec: vec.fit_transform(texts))
        if opts not in ours:  # textsift once per option set, right after its first anchor
            ours[opts] = timed(lambda o=opts: vectorize(texts, o))
        (X, names, _), w1, c1, l1 = ours[opts]
        ident = same(X, names, Y, vec.get_feature_names_out())
        label = "textsift" + (" stemmed" if opts.stem else "")
        print(f"| {anchor} | {w0:.2f} | {c0:.2f} | {n / w0:,.0f} | 1 | 1 | -- | {l0:.1f} |")
        print(f"| {label} | {w1:.2f} | {c1:.2f} | {n / w1:,.0f} | **{w0 / w1:.1f}x** | "
              f"{c0 / c1:.1f}x | {ident} | {l1:.1f} |")
        sys.stdout.flush()


def _rust_counters() -> list[tuple[str, object]]:
    """The Rust counters that install here from the registry, as ``(name, fit_transform)``:
    LeNLP's ``sparse.CountVectorizer`` and vtext's ``CountVectorizer`` (neither is
    textsift's dependency; each is left out when it is not installed). Neither tokenises
    as scikit-learn does (LeNLP keeps one-letter words and normalises accents, vtext splits
    on its own rules): they are speed anchors, not identities."""
    out = []
    try:
        from lenlp import sparse

        out.append(("LeNLP sparse.CountVectorizer (Rust)",
                    lambda texts: sparse.CountVectorizer().fit_transform(texts)))
    except ImportError:
        pass
    try:
        import vtext.vectorize

        out.append(("vtext CountVectorizer (Rust)",
                    lambda texts: vtext.vectorize.CountVectorizer().fit_transform(texts)))
    except ImportError:
        pass
    return out


def throughput_rows(name: str, texts: list[str], repeat: int) -> None:
    """MB of text (UTF-8) per CPU second and per wall second of the count pass (every
    term, no pruning: ``count_terms``, which ``vectorize`` prunes after) on one and on two
    threads, beside ``CountVectorizer().fit_transform`` and the Rust counters that install,
    in this process, each run ``repeat`` times in turn (the fastest of each kept: the load
    only adds). The critical path of the two-thread run is the larger of its main thread's
    CPU seconds (half the tokenising, the merge of the vocabularies, the names, Python's
    part) and the other thread's (the other half, then the renumbering, while the names are
    made): one thread's CPU over it estimates the wall speed-up two free cores give, which
    the wall ratio on a loaded machine hides."""
    from textsift.text.vectorize import count_terms

    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    runs = {"CountVectorizer": lambda: CountVectorizer(dtype=np.int32).fit_transform(texts),
            "textsift, 1 thread": lambda: count_terms(texts, n_threads=1),
            "textsift, 2 threads": lambda: count_terms(texts, n_threads=2)}
    for label, fit in _rust_counters():
        runs[label] = lambda fit=fit: fit(texts)
    best: dict[str, tuple] = {}
    for _ in range(repeat):
        for label, fn in runs.items():
            main = time.thread_time()
            out, wall, cpu, load_avg = timed(fn)
            r = (cpu, wall, time.thread_time() - main, load_avg, out)
            if label not in best or r[0] < best[label][0]:
                best[label] = r
            del out, r
    vec = CountVectorizer(dtype=np.int32)
    Y = vec.fit_transform(texts)
    ref_names = vec.get_feature_names_out()
    print(f"\n{name}: {len(texts):,} documents, {mb:.1f} MB of UTF-8; the fastest of {repeat} "
          f"runs each, in turn, in this process; {os.cpu_count()} cores")
    print("| count pass | CPU s | wall s | MB per CPU s | MB per wall s | ratio CPU | ratio wall "
          "| critical path CPU s | identical | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    cpu0, wall0 = best["CountVectorizer"][:2]
    one = best["textsift, 1 thread"][0]
    for label, (cpu, wall, main, load_avg, out) in best.items():
        ident = "--"
        if label.startswith("textsift"):
            ident = str(same(*out, Y, ref_names))
        crit = max(main, cpu - main)
        path = f"{crit:.2f} ({one / crit:.2f}x one thread)" if label.endswith("2 threads") \
            else "--"
        print(f"| {label} | {cpu:.2f} | {wall:.2f} | {mb / cpu:.0f} | {mb / wall:.0f} | "
              f"**{cpu0 / cpu:.1f}x** | {wall0 / wall:.1f}x | {path} | {ident} | "
              f"{load_avg:.1f} |")
    sys.stdout.flush()


def profile_rows(texts: list[str]) -> None:
    """cProfile of the count pass (``vectorize``, default options, both threads) on IMDb:
    the compiled pass is one call; what remains around it is Python's."""
    import cProfile
    import io
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    vectorize(texts)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(12)
    print(f"\ncProfile of vectorize on IMDb (load {os.getloadavg()[0]:.1f}), by own time")
    print("```")
    print("\n".join(line for line in out.getvalue().splitlines()[4:] if line.strip()))
    print("```")


def old_count_exact(src):
    """The exact streamed count before this count pass (textsift at commit 40d5904):
    ``CountVectorizer`` over the chunks twice, vocabulary first, then counts against it."""
    from collections import Counter

    from textsift.counting.counts import Counts
    from textsift.engines.stream import DocumentFrequencies

    total = DocumentFrequencies()
    for chunk in src():
        vec = build_vectorizer()
        X = vec.fit_transform(chunk.texts).tocsr()
        names = vec.get_feature_names_out().tolist()
        df = np.bincount(X.indices, minlength=len(names))
        tf = np.asarray(X.sum(axis=0)).ravel()
        total.update(DocumentFrequencies(
            len(chunk), Counter(dict(zip(names, df.tolist(), strict=True))),
            Counter(dict(zip(names, tf.tolist(), strict=True)))))
    vocab = total.vocabulary()
    vec = build_vectorizer().set_params(vocabulary={t: i for i, t in enumerate(vocab)})
    counts = None
    for chunk in src():
        part = Counts.from_matrix(vec.transform(chunk.texts), chunk.labels, feature_names=vocab)
        counts = part if counts is None else counts + part
    return counts


def fresh_stream(data: str, n_docs: int) -> dict:
    """``bench/scale.py --one stream N`` in a fresh process, started before this one holds
    any corpus: a child's peak RSS counts its parent's memory at the fork."""
    scale = Path(__file__).with_name("scale.py")
    out = subprocess.run([sys.executable, str(scale), "--one", "stream", str(n_docs),
                          "--data", data], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def stream_rows(data: str, r: dict, prefix: int) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from scale import Synthetic, digest

    from textsift.engines import count_exact

    print("\nthe stream of bench/scale.py, exact mode (chunks of 10,000 documents)")
    print("| count pass | documents | wall s | CPU s | documents per CPU s | ratio CPU "
          "| counts SHA-256 | load |")
    print("|---|---|---|---|---|---|---|---|")
    if prefix:
        src = Synthetic(data, 0, prefix)
        old, w0, c0, l0 = timed(lambda: old_count_exact(src))
        new, w1, c1, l1 = timed(lambda: count_exact(src))
        print(f"| before (CountVectorizer, two passes), this run | {prefix:,} | {w0:.1f} | "
              f"{c0:.1f} | {prefix / c0:,.0f} | 1 | `{digest(old)}` | {l0:.1f} |")
        print(f"| textsift (one pass), this run | {prefix:,} | {w1:.1f} | {c1:.1f} | "
              f"{prefix / c1:,.0f} | **{c0 / c1:.1f}x** | `{digest(new)}` | {l1:.1f} |")
        sys.stdout.flush()
    b = BEFORE
    print(f"| before (CountVectorizer, two passes), commit 40d5904 | {b['n_docs']:,} | "
          f"{b['seconds']} | {b['cpu_seconds']} | {b['n_docs'] / b['cpu_seconds']:,.0f} | 1 | "
          f"`{b['digest']}` | {b['load_average']} |")
    ratio = b["cpu_seconds"] / r["cpu_seconds"] * r["n_docs"] / b["n_docs"]
    print(f"| textsift (one pass), fresh process | {r['n_docs']:,} | {r['seconds']} | "
          f"{r['cpu_seconds']} | {r['n_docs'] / r['cpu_seconds']:,.0f} | **{ratio:.1f}x** "
          f"(goal >= 4) | `{r.get('digest')}` | {r['load_average']} |")
    if r["n_docs"] == b["n_docs"]:
        print(f"same counts as before: {r.get('digest') == b['digest']}; peak RSS "
              f"{r['peak_rss_mib']} MiB (of which the pool of texts {r['pool_rss_mib']} MiB)")


#: The option sets of the n-gram rows: (label, CountVectorizer's and textsift's options).
NGRAM_ROWS = [("words", {}), ("words + pairs (1-2)", {"ngram_range": (1, 2)}),
              ("char_wb 1-3", {"analyzer": "char_wb", "ngram_range": (1, 3)}),
              ("char 2-3", {"analyzer": "char", "ngram_range": (2, 3)})]


def _rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def matrix_digest(X, names) -> str:
    """SHA-256 of the names and the canonical CSR matrix (first 16 hex digits)."""
    X = sp.csr_matrix(X)
    X.sort_indices()
    h = hashlib.sha256("\n".join(names).encode("utf-8", "surrogatepass"))
    for a in (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data.astype(np.int64)):
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def one(data: Path, who: str, label: str) -> dict:
    """One count of IMDb train + test in this (fresh) process: times, memory and digest."""
    kw = dict(NGRAM_ROWS)[label]
    texts = load(data, CORPORA["IMDb"])
    if who == "textsift":
        vectorize(["warm up, once"])  # the word-character table, imports
    base = _rss_mib()
    if who == "textsift":
        (X, names, _), wall, cpu, load_avg = timed(lambda: vectorize(texts,
                                                                     VectorizerOptions(**kw)))
    else:
        vec = CountVectorizer(dtype=np.int32, **kw)
        X, wall, cpu, load_avg = timed(lambda: vec.fit_transform(texts))
        names = vec.get_feature_names_out()
    peak = peak_rss_bytes() / 2**20
    return {"wall": wall, "cpu": cpu, "load": load_avg, "peak_mib": peak,
            "rise_mib": peak - base, "terms": len(names), "digest": matrix_digest(X, names)}


def ngram_rows(data: Path) -> None:
    print(f"\nIMDb train + test (50,000 reviews), each count in a fresh process; {os.cpu_count()} "
          "cores")
    print("| terms | count pass | wall s | CPU s | peak RSS MiB (rise) | ratio wall | ratio CPU "
          "| memory ratio | terms | identical | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for label, _ in NGRAM_ROWS:
        r = {}
        for who in ("CountVectorizer", "textsift"):
            out = subprocess.run([sys.executable, __file__, "--one", who, label, "--data",
                                  str(data)], capture_output=True, text=True, check=True)
            r[who] = json.loads(out.stdout.strip().splitlines()[-1])
        cv, ts = r["CountVectorizer"], r["textsift"]
        print(f"| {label} | CountVectorizer | {cv['wall']:.2f} | {cv['cpu']:.2f} | "
              f"{cv['peak_mib']:,.0f} ({cv['rise_mib']:,.0f}) | 1 | 1 | 1 | {cv['terms']:,} | -- "
              f"| {cv['load']:.1f} |")
        print(f"| {label} | textsift | {ts['wall']:.2f} | {ts['cpu']:.2f} | "
              f"{ts['peak_mib']:,.0f} ({ts['rise_mib']:,.0f}) | **{cv['wall'] / ts['wall']:.1f}x** "
              f"| {cv['cpu'] / ts['cpu']:.1f}x | {ts['peak_mib'] / cv['peak_mib']:.2f} | "
              f"{ts['terms']:,} | {ts['digest'] == cv['digest']} | {ts['load']:.1f} |")
        sys.stdout.flush()


KOREAN_ROWS = [("words", {}), ("words 1-2", {"ngram_range": (1, 2)}),
               ("char 2-3", {"analyzer": "char", "ngram_range": (2, 3)}),
               ("char_wb 1-3", {"analyzer": "char_wb", "ngram_range": (1, 3)}),
               ("morphemes (Kiwi)", {"tokenizer": "korean"})]


def korean_rows(data: Path) -> None:
    with gzip.open(data / "nsmc_korean/all.jsonl.gz", "rt", encoding="utf-8") as fh:
        texts = [json.loads(line)["text"] for line in fh]
    print(f"\nNSMC (Korean), {len(texts):,} reviews, {sum(map(len, texts)) / 1e6:.1f} M "
          "characters")
    print("| terms | CountVectorizer wall s | CPU s | textsift wall s | CPU s | ratio wall "
          "| ratio CPU | terms | identical | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    vectorize(["warm up"], tokenizer="korean")  # Kiwi's model loads once (a few seconds)
    for label, kw in KOREAN_ROWS:
        opts = VectorizerOptions(**kw)
        (X, names, _), w1, c1, l1 = timed(lambda o=opts: vectorize(texts, o))
        if "tokenizer" in kw:
            print(f"| {label} | -- | -- | {w1:.2f} | {c1:.2f} | -- | -- | {len(names):,} | -- "
                  f"| {l1:.1f} |")
            continue
        vec = CountVectorizer(dtype=np.int32, **kw)
        Y, w0, c0, l0 = timed(lambda v=vec: v.fit_transform(texts))
        ident = same(X, names, Y, vec.get_feature_names_out())
        print(f"| {label} | {w0:.2f} | {c0:.2f} | {w1:.2f} | {c1:.2f} | **{w0 / w1:.1f}x** | "
              f"{c0 / c1:.1f}x | {len(names):,} | {ident} | {(l0 + l1) / 2:.1f} |")
        sys.stdout.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=os.environ.get("TEXTSIFT_DATA", "../shared/data"))
    ap.add_argument("--stream-docs", type=int, default=1_000_000)
    ap.add_argument("--prefix-docs", type=int, default=100_000,
                    help="documents of the stream counted both ways in this run (0: skip)")
    ap.add_argument("--skip-stream", action="store_true")
    ap.add_argument("--only", choices=["ngrams", "korean", "throughput"],
                    help="only these rows")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each count pass in the throughput rows (the fastest kept)")
    ap.add_argument("--one", nargs=2, metavar=("WHO", "TERMS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    data = Path(args.data)
    if args.one:
        print(json.dumps(one(data, *args.one)))
        return
    print(f"{os.cpu_count()} cores; load average (1 min) beside each figure")
    if args.only in (None, "throughput"):
        vectorize(["warm up, once"])  # the Unicode tables, imports
        for name, files in CORPORA.items():
            texts = load(data, files)
            throughput_rows(name, texts, args.repeat)
        profile_rows(texts)  # IMDb
        del texts
    if args.only == "throughput":
        return
    if args.only != "korean":
        ngram_rows(data)
    if args.only != "ngrams":
        korean_rows(data)
    if args.only:
        return
    stream = None if args.skip_stream else fresh_stream(str(data), args.stream_docs)
    # one-off costs out of the timings: imports, the word-character table, thread start-up
    vectorize(["warm up, once"], stem=True)
    CountVectorizer().fit_transform(["warm up, once"])
    for name, files in CORPORA.items():
        texts = load(data, files)
        corpus_rows(name, texts, pure=name == "20 Newsgroups")
    if stream is not None:
        stream_rows(str(data), stream, args.prefix_docs)


if __name__ == "__main__":
    main()
