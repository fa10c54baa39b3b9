"""Wall time of the experiment harness, and the share of it spent outside the learners.

    TEXTSIFT_DATA=../shared/data .venv/bin/python bench/harness.py [--n-jobs 1]

Runs the RC paper's experiment on 20 Newsgroups bydate (11,314 train / 7,532 test; stop words,
Snowball stemming, header stripping, min_df 2) with 5 methods (rc, ig, mi, odds_ratio, dia;
max policy) x 8 sizes (100 ... 2,000 terms) x 2 learners (multinomial NB on counts, LinearSVC
on tf-idf) = 80 trials, from an empty output directory, serially by default so that the
learners' own seconds (fit + predict, measured inside each trial) can be subtracted from the
wall time. The anchor is the learners' time in the same run: the harness's overhead is
everything else -- reading, tokenising and stemming the corpus, vectorising, counting,
scoring and ranking, column slicing, metrics, writing the trials and the tables, and the
report -- reported as a share of the wall time (goal: under 15%); also without the
one-off corpus preparation (which the fold cache saves a resumed run), inside the trials alone, and
(serial runs) as a share of CPU time, which a busy shared machine does not distort -- with
the CPU seconds of the corpus preparation (``run.json``'s ``prepare_cpu_s``), of the top terms,
their evidence and the tables (``tables_cpu_s``) and of the report (its figures apart), so
that every part outside the learners is measured in CPU seconds too; the floor, the share the
preparation and the report alone leave; and the preparation's parts measured again after the
run (reading; the count pass on one thread, with the MB of text per CPU second that
``bench/count.py`` measures; the Unicode tables built once a process). The load average,
cores and BLAS threads are printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import pandas as pd
from _common import add_data_option, conditions  # bench/ is the script's path

from textsift.experiment import parse_config, run_experiment
from textsift.report import html

SIZES = [100, 200, 300, 500, 700, 1000, 1500, 2000]
#: The goal: the share of the run's time outside the learners.
GOAL = 0.15


def config(data: Path, n_jobs: int) -> dict:
    return {
        "experiment": {"name": "bench-rc-20ng-bydate", "seed": 0, "n_jobs": n_jobs},
        "corpus": {"dataset": "20ng-bydate", "path": str(data / "20newsgroups/train.jsonl.gz"),
                   "test_path": str(data / "20newsgroups/test.jsonl.gz")},
        "evaluation": {"protocol": "split", "metrics": ["micro_f1", "macro_f1", "accuracy"]},
        "preprocessing": {"stop_words": "english", "stem": True, "strip_headers": True,
                          "min_df": 2},
        "selection": {"methods": ["rc", "ig", "mi", "odds_ratio", "dia"], "aggregates": ["max"],
                      "sizes": SIZES},
        "learners": [{"name": "nb"}, {"name": "linear_svm"}],
    }


def _timed(module, name: str, seconds: list) -> None:
    """Wrap ``module.name`` to add each call's CPU seconds to ``seconds``."""
    inner = getattr(module, name)

    def timed(*args, **kwargs):
        c0 = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            seconds.append(time.process_time() - c0)

    setattr(module, name, timed)


def preparation(exp) -> list[tuple[str, str]]:
    """The corpus preparation's parts measured again after the run, in this process: reading
    (gunzip, JSON, header stripping), the count pass on one thread (stop words and stems
    included) and the Unicode tables the count pass builds once per process; the text's MB
    (UTF-8) and the count pass's MB per CPU second (``bench/count.py`` measures the same pass,
    default options, on these texts)."""
    from textsift.experiment.folds import read_documents
    from textsift.text.unicode import unicode_tables
    from textsift.text.vectorize import count_terms

    c0 = time.process_time()
    texts, _, _ = read_documents(exp)
    read = time.process_time() - c0
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    c0 = time.process_time()
    count_terms(texts, exp.preprocessing, n_threads=1)
    count = time.process_time() - c0
    c0 = time.process_time()
    unicode_tables.__wrapped__()
    tables = time.process_time() - c0
    return [("corpus", f"{len(texts):,} documents, {mb:.1f} MB of text"),
            ("  reading (gunzip, JSON, headers), CPU", f"{read:8.2f} s ({mb / read:.0f} MB/s)"),
            ("  counting (one thread, stop words, stems), CPU",
             f"{count:8.2f} s ({mb / count:.0f} MB/s)"),
            ("  Unicode tables (once a process: in the run's count)",
             f"{tables:8.2f} s")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--n-jobs", type=int, default=1)
    args = ap.parse_args()
    exp = parse_config(config(args.data.resolve(), args.n_jobs), src="bench/harness.py")
    figures: list[float] = []
    _timed(html, "curve_figures", figures)
    load0 = os.getloadavg()[0]
    before = conditions()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        t0, c0 = time.perf_counter(), time.process_time()
        run = run_experiment(exp, out)
        t_run, c_run = time.perf_counter() - t0, time.process_time() - c0
        html.write_report(out)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        timings = pd.read_csv(out / "timings.csv")
        record = json.loads((out / "run.json").read_text())
        prepare, prepare_cpu = record["prepare_s"], record["prepare_cpu_s"]
        tables_cpu = record["tables_cpu_s"]
    learner = timings["learner_s"].sum()
    select = timings["select_s"].sum()
    metrics = timings["metrics_s"].sum()
    trials = timings["select_s"].add(timings["learner_s"]).add(timings["metrics_s"]).sum()
    rows = [
        ("trials", f"{run.n_trials}"),
        ("load average (1 min), start / end", f"{load0:.1f} / {os.getloadavg()[0]:.1f} "
                                              f"({os.cpu_count()} cores)"),
        ("wall time, run + report", f"{wall:8.1f} s"),
        ("  of which learners (fit + predict)", f"{learner:8.1f} s"),
        ("  of which selection + column slicing", f"{select:8.1f} s"),
        ("  of which metrics", f"{metrics:8.1f} s"),
        ("  of which reading, tokenising, vectorising, counting", f"{prepare:8.1f} s"),
        ("  of which store, tables, top terms", f"{t_run - prepare - trials / args.n_jobs:8.1f} s"),
        ("  of which report", f"{wall - t_run:8.1f} s"),
        ("share outside the learners",
         f"{1 - learner / args.n_jobs / wall:8.1%} (goal < {GOAL:.0%})"),
        ("  same, without the one-off corpus preparation",
         f"{1 - learner / args.n_jobs / (wall - prepare):8.1%}"),
        ("  same, inside the trials only (selection + metrics)",
         f"{(select + metrics) / trials:8.1%}"),
    ]
    width = 56
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    if args.n_jobs > 1:
        print("(with n_jobs > 1 the learners' seconds are divided by n_jobs: an estimate)")
    else:  # CPU seconds do not depend on what else the machine is doing
        learner_cpu = timings["learner_cpu_s"].sum()
        share = 1 - learner_cpu / cpu
        trials_cpu = c_run - prepare_cpu - learner_cpu - tables_cpu
        fixed = prepare_cpu + cpu - c_run  # the preparation and the report
        rows = [
            ("CPU time, run + report", f"{cpu:8.1f} s"),
            ("  of which learners", f"{learner_cpu:8.1f} s"),
            ("  of which reading, tokenising, vectorising, counting", f"{prepare_cpu:8.1f} s"),
            ("  of which the trials' selection, metrics, files",
             f"{trials_cpu:8.1f} s"),
            ("  of which top terms, their evidence, the tables", f"{tables_cpu:8.1f} s"),
            ("  of which report", f"{cpu - c_run:8.1f} s"),
            ("    of which its figures (matplotlib: PNG and SVG)", f"{sum(figures):8.1f} s"),
            ("share outside the learners, CPU",
             f"{share:8.1%} (goal < {GOAL:.0%}: {'met' if share < GOAL else 'not met'}; "
             f"{share / GOAL:.1f}x the goal)"),
            ("  same, without the one-off corpus preparation",
             f"{1 - learner_cpu / (cpu - prepare_cpu):8.1%}"),
            ("  same, without the preparation and the report",
             f"{1 - learner_cpu / (c_run - prepare_cpu):8.1%}"),
            ("  floor: the preparation and the report, nothing else",
             f"{fixed / (fixed + learner_cpu):8.1%}"),
            *preparation(exp),
        ]
        for k, v in rows:
            print(f"{k:<{width}}  {v}")
    print(f"before: {before}")
    print(f"after:  {conditions()}")


if __name__ == "__main__":
    main()
