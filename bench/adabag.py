"""AdaBag's speed on IMDb: where a run's time goes, its lasso paths against glmnet's Fortran,
and the README's whole run before and after a change, each figure with the load average.

1. Stages of a few bootstraps, in this process (``--stage-bootstraps``, default 6): the CPU
   seconds of each bootstrap preparing (its grid and the sample's rows), solving the lasso
   path (adelie), refitting least squares on the active words and predicting the validation
   rows, and scoring the criterion; start-up and copies: the task's dump for the worker
   processes (seconds, MB) and a fresh worker's start-up (importing what a bootstrap needs
   and loading the task), in CPU seconds.
2. One AdaBag bootstrap's path (the core set of the 2:1:1 split, one bootstrap's
   multiplicities as sample weights, imdb polarity penalty factors, 100 lambdas down to 1e-3
   lambda_max) and a review matrix of 10,000 x 10,727 with bootstrap weights and random
   penalty factors (uniform 0.5-2) on glmnet's grid: adelie against glmnet (the anchor,
   python-glmnet, skipped with a note when not installed): seconds, ratio and the largest
   relative objective difference. The previous default, skglm, is printed from its recorded
   figure (28.9 s against glmnet's 1.20 s on the first path, load 2.6).
3. ``--full``: the README's run, ``textsift adabag imdb/train.jsonl.gz imdb/test.jsonl.gz
   --label-field rating --polarity imdb --patience 10 --max-active 0 --bootstraps 100
   --n-jobs 2``, through the command line: wall seconds, CPU seconds of the command and its
   worker processes, the load average before and after, the result (test error, words), and
   the stages of the fit (from its summary.json). ``--against REV`` (e.g. ``7ca310e^1``, the
   commit before the class-weight merge) runs the same command on REV's code (``git archive``
   into a temporary folder) right before, so that both run at the same load; the last line
   is the ratio. The check: the result beside the expected one (test error 0.1208 with
   1,194 words, reproductions section 4.2), the CPU seconds per bootstrap, the cores and
   the load, the CPU outside the bootstraps (reading, vectorising, the workers' start-up,
   the cutoff and final stages, the pictures) and what the run takes on a quiet machine
   with these cores: that CPU plus the bootstraps' CPU shared by the cores.
4. ``--bootstrap-cpu N``: the CPU seconds per bootstrap of the run's first N bootstraps, in
   a fresh process per measurement; with ``--against REV``, REV's code and this code
   alternately (``--rounds`` each, the order swapped every round), so that both see the
   same load, and whether their selections are the same. The full run's time at a
   quiet machine is extrapolated from it (part 3's CPU outside the bootstraps, given by
   ``--outside``).

    TEXTSIFT_DATA=/path/to/shared/data python bench/adabag.py [--full [--against REV]]
    python bench/adabag.py --no-stages --no-paths --bootstrap-cpu 5 --against bc5bd5a
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
from _common import add_data_option
from threadpoolctl import threadpool_limits

from textsift.lasso import (
    SharedDesign,
    adaptive_weights,
    lambda_grid,
    lasso_path,
    load_polarity,
    objective,
    split_211,
    stratified_bootstrap,
)
from textsift.lasso.adabag import BOOTSTRAP_STAGES, BootstrapTask, bootstrap_seconds
from textsift.text.vectorize import VectorizerOptions, vectorize

SKGLM_RECORDED = (28.9, 1.20, 2.6)
#: The README run's result (docs/reproductions.md section 4.2): test error, words.
EXPECTED = (0.1208, 1194)  # skglm s, glmnet s, load: docs/reproductions.md section 4
REPO = Path(__file__).resolve().parents[1]
README_RUN = ["adabag", "imdb/train.jsonl.gz", "imdb/test.jsonl.gz", "--label-field", "rating",
              "--polarity", "imdb", "--patience", "10", "--max-active", "0", "--bootstraps",
              "100", "--n-jobs", "2"]
#: What a bootstrap worker imports before its first bootstrap (bagging._TaskFile loads it).
WORKER = ("import sys, time, joblib; from textsift.lasso.path import _import_adelie; "
          "_import_adelie(); joblib.load(sys.argv[1], mmap_mode='r')")


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def load_imdb(root: Path, splits=("train", "test")):
    frame = pd.concat([pd.read_json(root / "imdb" / f"{s}.jsonl.gz", lines=True)
                       for s in splits], ignore_index=True)
    return frame["text"].tolist(), frame["rating"].to_numpy(float)


def children_cpu() -> float:
    """CPU seconds of the finished child processes (and theirs) so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def imdb_task(X, y, pol):
    """The IMDb run's bootstrap task as the estimator builds it (the 2:1:1 split of seed 0:
    the core rows' paths, the validation rows' errors), and its strata."""
    theta = (y >= 7).astype(np.int8)
    part = split_211(theta, np.zeros(len(y), int), 0)
    core, val = np.flatnonzero(part == 0), np.flatnonzero(part == 1)
    zeros = np.zeros(len(y), np.int64)
    design = SharedDesign.build(X[core], zeros[core], adaptive_weights(pol), np.ones(1))
    task = BootstrapTask(design, X[core], y[core], zeros[core], X[val], theta[val],
                         zeros[val], 4, 7, patience=10)
    return task, theta[core]


def stages(X, y, pol, n: int):
    """Part 1: ``n`` bootstraps in this process, and the start-up of a worker."""
    task, strata = imdb_task(X, y, pol)
    lasso_path(X[:40], y[:40], n_lambdas=3)  # adelie imported outside the timings
    with threadpool_limits(1):  # as in the workers: BLAS threads would spin on the other core
        results = [task(stratified_bootstrap(strata, np.random.default_rng(s)))
                   for s in np.random.SeedSequence(0).spawn(n)]  # the run's first n
    cpu = bootstrap_seconds(results)
    print(f"1. stages of {n} IMDb bootstraps in this process, CPU seconds per bootstrap "
          f"({load()}):")
    print("  " + ", ".join(f"{k} {cpu[k] / n:.3f}" for k in BOOTSTRAP_STAGES)
          + f"; total {sum(cpu[k] for k in BOOTSTRAP_STAGES) / n:.3f}")
    with tempfile.TemporaryDirectory(prefix="textsift-bench-") as tmp:
        path = Path(tmp) / "task.joblib"
        t0 = time.perf_counter()
        joblib.dump(task, path)
        dump = time.perf_counter() - t0
        before, t0 = children_cpu(), time.perf_counter()
        subprocess.run([sys.executable, "-c", WORKER, str(path)], check=True)
        print(f"  start-up and copies: the task dumped once for the workers {dump:.2f} s "
              f"({path.stat().st_size / 2**20:.0f} MB); a worker's start-up (imports, "
              f"adelie, the task mapped) {children_cpu() - before:.2f} s CPU, "
              f"{time.perf_counter() - t0:.2f} s wall ({load()})")


def have_glmnet() -> bool:
    try:
        import glmnet  # noqa: F401
    except ImportError:
        print("  python-glmnet is not installed (pip install 'textsift[glmnet]'): no anchor")
        return False
    return True


def side_by_side(name, X, y, pf, w, lambdas, anchor: bool):
    """Time each backend on one path; print seconds, ratio and objective differences."""
    rows = {}
    for backend in (["glmnet"] if anchor else []) + ["adelie"]:
        lasso_path(X[:40], y[:40], pf, w[:40], lambdas[:3], backend=backend)  # imported
        t = time.perf_counter()
        path = lasso_path(X, y, pf, w, lambdas, backend=backend)
        rows[backend] = (time.perf_counter() - t, path)
        print(f"  {name}: {backend:7s} {rows[backend][0]:7.2f} s  ({load()})", flush=True)
    if not anchor:
        return
    (tg, g), (ta, a) = rows["glmnet"], rows["adelie"]
    rel = [(objective(X, y, a.coef[:, [k]], a.intercept[k], lam, pf, w)
            - objective(X, y, g.coef[:, [k]], g.intercept[k], lam, pf, w))
           / objective(X, y, g.coef[:, [k]], g.intercept[k], lam, pf, w)
           for k, lam in enumerate(lambdas)]
    same = np.mean([set(a.active(k)) == set(g.active(k)) for k in range(len(lambdas))])
    print(f"  {name}: adelie / glmnet = {ta / tg:.2f}; objective relative difference "
          f"max {np.max(np.abs(rel)):.1e} (adelie lower at {np.sum(np.array(rel) < 0)} of "
          f"{len(rel)} lambdas); identical active sets at {same:.0%} of the lambdas")


def paths(root: Path, X, y, pol):
    """Part 2: adelie against glmnet on two paths."""
    print("2. lasso paths, adelie against glmnet")
    anchor = have_glmnet()
    theta = (y >= 7).astype(int)
    core = np.flatnonzero(split_211(theta, np.zeros(len(y), int), 0) == 0)
    design = SharedDesign.build(X[core], np.zeros(len(core), int), adaptive_weights(pol),
                                np.ones(1))
    m = stratified_bootstrap(theta[core], np.random.default_rng(1)).astype(float)
    lambdas = lambda_grid(design.Z, y[core], design.penalty_factor, m, 100, 1e-3)
    print(f"  one AdaBag bootstrap's path: {design.Z.shape[0]} x {design.Z.shape[1]}, 100 "
          "lambdas to 1e-3 lambda_max")
    side_by_side("IMDb bootstrap", design.Z, y[core], design.penalty_factor, m, lambdas, anchor)
    s, g, ld = SKGLM_RECORDED
    print(f"  IMDb bootstrap: skglm   {s:7.2f} s  (recorded at load {ld}; glmnet {g:.2f} s then, "
          f"ratio {s / g:.1f})")
    rtexts, ry = load_imdb(root, ("train",))
    pick = np.random.default_rng(0).permutation(len(rtexts))[:10_000]
    R, _, _ = vectorize([rtexts[i] for i in pick], VectorizerOptions(binary=True, min_df=10))
    rng = np.random.default_rng(0)
    w = stratified_bootstrap((ry[pick] >= 7).astype(int), rng).astype(float)
    pf = rng.uniform(0.5, 2.0, R.shape[1])
    grid = lambda_grid(R, ry[pick], pf, w, 100)
    print(f"  review matrix {R.shape[0]} x {R.shape[1]}, bootstrap weights, random penalty "
          "factors, glmnet's grid of 100 lambdas")
    side_by_side("reviews", R, ry[pick], pf, w, grid, anchor)


def readme_run(root: Path, src: Path, out: Path) -> dict:
    """Part 3: the README's run through the command line on the code in ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src), "MPLBACKEND": "Agg"}
    argv = [sys.executable, "-c", "import sys; from textsift.cli import main; sys.exit(main())"]
    args = [str(root / a) if a.endswith(".gz") else a for a in README_RUN] + ["--out", str(out)]
    start_load, before, t0 = load(), children_cpu(), time.perf_counter()
    done = subprocess.run(argv + args, env=env, capture_output=True, text=True, check=True)
    wall, cpu = time.perf_counter() - t0, children_cpu() - before
    summary = json.loads((out / "summary.json").read_text())
    return {"wall": wall, "cpu": cpu, "loads": f"{start_load} -> {load()}", "summary": summary,
            "stdout": done.stdout.strip().splitlines()[-1]}


def full(root: Path, against: str | None):
    print("3. the README's IMDb run through `textsift " + " ".join(README_RUN) + "`")
    with tempfile.TemporaryDirectory(prefix="textsift-bench-") as tmp:
        runs = {}
        if against:
            old = Path(tmp) / "old"
            old.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", against, "src"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
            runs[against] = readme_run(root, old / "src", Path(tmp) / "out-old")
        runs["this code"] = readme_run(root, REPO / "src", Path(tmp) / "out-new")
    for name, r in runs.items():
        print(f"  {name:12s} {r['wall']:6.1f} s wall, {r['cpu']:6.1f} s CPU ({r['loads']}): "
              f"{r['stdout']}")
    if against:
        old, new = runs[against], runs["this code"]
        print(f"  this code / {against}: wall {new['wall'] / old['wall']:.2f}, CPU "
              f"{new['cpu'] / old['cpu']:.2f}")
    return check(runs["this code"])


def check(run: dict) -> float | None:
    """Part 3's check of one run: its result beside the expected, its CPU per bootstrap and
    outside the bootstraps, and the wall time that CPU takes on a quiet machine."""
    summary, n_cores = run["summary"], cores()
    error, words = summary["test_error"], summary["model_size"]
    same = (round(error, 4), words) == EXPECTED
    print(f"  check ({n_cores} cores, {run['loads']}): test error {error:.4f} (expected "
          f"{EXPECTED[0]:.4f}), {words:,} words (expected {EXPECTED[1]:,}): "
          f"{'the same' if same else 'DIFFERENT'}")
    stage = summary.get("stage_seconds", {})
    cpu = stage.get("bootstrap_cpu", {})
    n = cpu.get("bootstraps", 0)
    print(f"  wall {run['wall']:.1f} s, CPU {run['cpu']:.1f} s (the command and its workers); "
          "the fit's stages, wall seconds: " + ", ".join(
              f"{k} {v:.1f}" for k, v in stage.items() if k != "bootstrap_cpu"))
    if not n:
        return None
    boot = sum(cpu[k] for k in BOOTSTRAP_STAGES)
    outside = run["cpu"] - boot
    print(f"  CPU per bootstrap ({n}): " + ", ".join(
        f"{k} {cpu[k] / n:.3f}" for k in BOOTSTRAP_STAGES) + f"; total {boot / n:.3f} s")
    print(f"  CPU outside the bootstraps (reading, vectorising, the workers' start-up, "
          f"cutoff, final, pictures): {outside:.1f} s; on a quiet machine with {n_cores} "
          f"cores about {outside:.1f} + {boot:.1f} / {n_cores} = "
          f"{outside + boot / n_cores:.1f} s wall (goal: <= 90 s)")
    return outside


#: Part 4's child: the first N bootstraps of the IMDb task, on the code of its PYTHONPATH.
CHILD = """
import hashlib, json, sys, time
import numpy as np, scipy.sparse as sp
from threadpoolctl import threadpool_limits
sys.path.insert(0, sys.argv[1])
from adabag import imdb_task
from textsift.lasso import lasso_path, stratified_bootstrap
from textsift.lasso.adabag import BOOTSTRAP_STAGES, bootstrap_seconds
X = sp.load_npz(sys.argv[2] + "/X.npz").tocsr()
z = np.load(sys.argv[2] + "/y.npz")
task, strata = imdb_task(X, z["y"], z["pol"])
lasso_path(X[:40], z["y"][:40], n_lambdas=3)  # adelie imported outside the timing
n = int(sys.argv[3])
with threadpool_limits(1):
    t0 = time.process_time()
    res = [task(stratified_bootstrap(strata, np.random.default_rng(s)))
           for s in np.random.SeedSequence(0).spawn(n)]
    cpu = time.process_time() - t0
stages = bootstrap_seconds(res)
digest = hashlib.sha1(b"".join(r["selected"].tobytes() + np.int64(r["k"]).tobytes()
                               for r in res)).hexdigest()[:12]
print(json.dumps({"cpu": cpu / n, "digest": digest,
                  **{k: stages[k] / n for k in BOOTSTRAP_STAGES}}))
"""


def bootstrap_cpu(X, y, pol, n: int, rounds: int, against: str | None, outside):
    """Part 4: CPU seconds per bootstrap, this code (and ``against``'s) in fresh processes."""
    import scipy.sparse as sp

    print(f"4. CPU seconds per bootstrap, the run's first {n} bootstraps, one fresh process "
          f"per measurement ({cores()} cores)")
    with tempfile.TemporaryDirectory(prefix="textsift-bench-") as tmp:
        sp.save_npz(f"{tmp}/X.npz", X)
        np.savez(f"{tmp}/y.npz", y=y, pol=pol)
        codes = {"this code": REPO / "src"}
        if against:
            (Path(tmp) / "old").mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", against, "src"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", f"{tmp}/old"], input=archive, check=True)
            codes = {against: Path(tmp) / "old" / "src", **codes}
        seen = {name: [] for name in codes}
        for r in range(rounds):
            for name in (list(codes) if r % 2 == 0 else list(codes)[::-1]):
                env = {**os.environ, "PYTHONPATH": str(codes[name])}
                before = load()
                done = subprocess.run([sys.executable, "-c", CHILD, str(REPO / "bench"), tmp,
                                       str(n)], env=env, capture_output=True, text=True,
                                      check=True)
                got = json.loads(done.stdout.strip().splitlines()[-1])
                seen[name].append(got)
                print(f"  round {r + 1}, {name:10s}: {got['cpu']:.3f} s (" + ", ".join(
                    f"{k} {got[k]:.3f}" for k in BOOTSTRAP_STAGES) + f"; selections "
                    f"{got['digest']}; {before})", flush=True)
    for name, runs in seen.items():
        med = float(np.median([g["cpu"] for g in runs]))
        print(f"  {name}: median {med:.3f} s per bootstrap; 100 bootstraps {100 * med:.0f} s "
              "CPU" + ("" if outside is None else f"; with {outside:.1f} s outside them, about "
                       f"{outside + 100 * med / cores():.1f} s wall on a quiet machine with "
                       f"{cores()} cores"))
    if against:
        old, new = ([float(np.median([g["cpu"] for g in seen[k]])) for k in seen])
        digests = {g["digest"] for runs in seen.values() for g in runs}
        print(f"  this code / {against}: {new / old:.3f} CPU per bootstrap; selections "
              f"{'the same' if len(digests) == 1 else 'DIFFERENT'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stage-bootstraps", type=int, default=6)
    ap.add_argument("--no-stages", action="store_true", help="skip part 1")
    ap.add_argument("--no-paths", action="store_true", help="skip part 2")
    ap.add_argument("--bootstrap-cpu", type=int, default=0, metavar="N",
                    help="part 4: CPU per bootstrap of the first N bootstraps")
    ap.add_argument("--rounds", type=int, default=3, help="part 4's measurements of each")
    ap.add_argument("--outside", type=float, help="part 4: the run's CPU seconds outside "
                    "the bootstraps (part 3's, when part 3 runs too)")
    ap.add_argument("--full", action="store_true", help="also the README's whole run (part 3)")
    ap.add_argument("--against", help="with --full or --bootstrap-cpu: the same on this git "
                    "revision")
    add_data_option(ap)
    args = ap.parse_args()
    os.environ.setdefault("TEXTSIFT_DATA", str(args.data))  # the imdb polarity's lexicon
    texts, y = load_imdb(args.data)
    X, names, _ = vectorize(texts, VectorizerOptions(binary=True, min_df=5))
    pol = load_polarity("imdb", names)
    if not args.no_stages:
        stages(X, y, pol, args.stage_bootstraps)
    if not args.no_paths:
        paths(args.data, X, y, pol)
    outside = args.outside
    if args.full:
        outside = full(args.data, args.against) or outside
    if args.bootstrap_cpu:
        bootstrap_cpu(X, y, pol, args.bootstrap_cpu, args.rounds, args.against, outside)


if __name__ == "__main__":
    main()
