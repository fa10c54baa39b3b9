"""The Dask engine on a distributed LocalCluster (2 in-process workers on TCP): same counts and
ranking as in memory, its bad input, and joblib on the cluster."""

import gzip
import json
import socket

import joblib
import numpy as np
import pytest
from typer.testing import CliRunner

from textsift.cli import app
from textsift.counting.counts import Counts
from textsift.engines import count_file, file_parts
from textsift.engines.dask import count_dask, joblib_on_cluster
from textsift.errors import TextsiftError
from textsift.reading.corpus import CorpusError, load_sample, sample_path
from textsift.selection.ranking import rank

distributed = pytest.importorskip("distributed")
runner = CliRunner()


@pytest.fixture(scope="module")
def client():
    with (distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                   protocol="tcp", dashboard_address=None) as cluster,
          distributed.Client(cluster, set_as_default=False) as c):
        yield c


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """The 20NG sample dealt round-robin into 4 JSONL files, plus an empty file."""
    root = tmp_path_factory.mktemp("shards")
    lines = gzip.open(sample_path("20ng"), "rt", encoding="utf-8").read().splitlines()
    for i in range(4):
        (root / f"part{i}.jsonl").write_text("\n".join(lines[i::4]) + "\n")
    (root / "part4.jsonl").write_text("")  # an empty partition
    return root


def test_dask_counts_and_ranking_equal_in_memory(client, shards):
    corpus = load_sample("20ng")
    memory = Counts.from_texts(corpus.texts, corpus.labels)
    parts = file_parts(shards, chunk_size=300)
    assert len(parts) == 5
    counted = count_dask(parts, client=client, split_every=2)  # a 3-level reduction tree
    assert counted.equals(memory)
    for method in ("chi2", "ig", "bns"):
        a, b = rank(memory, method, top=100), rank(counted, method, top=100)
        assert list(a.terms) == list(b.terms)
        np.testing.assert_allclose(b.scores, a.scores, rtol=0, atol=1e-12)


def test_parquet_row_groups_are_partitions(client, tmp_path):
    frame = load_sample("reviews").frame.iloc[:900]
    path = tmp_path / "r.parquet"
    frame.to_parquet(path, row_group_size=200)
    assert [p.row_groups for p in file_parts(path)] == [(0,), (1,), (2,), (3,), (4,)]
    counted = count_file(path, label_field="rating", engine="dask", client=client)
    assert counted.equals(Counts.from_texts(frame["text"].tolist(), frame["rating"].to_numpy()))


def test_cli_score_on_a_scheduler_address_matches_memory(client, shards):
    base = ["score", str(shards), "--method", "chi2", "--top", "25", "--format", "csv"]
    memory = runner.invoke(app, ["score", str(sample_path("20ng")), *base[2:]])
    dask = runner.invoke(app, [*base, "--engine", "dask", "--scheduler",
                               client.scheduler.address, "--chunk-size", "400"])
    assert memory.exit_code == 0 and dask.exit_code == 0, dask.stderr
    assert dask.stdout == memory.stdout


def test_label_seen_in_one_partition_only_grows_the_classes(client, tmp_path):
    for i, labels in enumerate((["a", "b"], ["b", "c"], ["d"])):
        (tmp_path / f"p{i}.jsonl").write_text("".join(
            json.dumps({"text": f"word{j} {lab}x common", "label": lab}) + "\n"
            for j, lab in enumerate(labels)))
    counted = count_file(tmp_path, engine="dask", client=client)
    assert list(counted.classes) == ["a", "b", "c", "d"]
    assert list(counted.class_sizes) == [1, 2, 1, 1]
    texts = [f"word{j} {lab}x common" for labels in (["a", "b"], ["b", "c"], ["d"])
             for j, lab in enumerate(labels)]
    assert counted.equals(Counts.from_texts(texts, ["a", "b", "b", "c", "d"]))


def test_malformed_line_in_a_partition(client, shards, tmp_path):
    good = (shards / "part1.jsonl").read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*good[:4], "{not json", *good[4:]]) + "\n")
    with pytest.raises(CorpusError, match=r"bad\.jsonl, line 5: malformed JSON"):
        count_file(bad, engine="dask", client=client)
    skipped: list = []
    with pytest.warns(UserWarning, match="skipped 1 malformed line"):
        counted = count_file(bad, engine="dask", client=client, on_bad_line="skip",
                             bad_lines=skipped)
    assert skipped == [(str(bad), 5)]
    assert counted.equals(count_file(shards / "part1.jsonl"))


def test_only_empty_partitions_is_an_empty_corpus(client, tmp_path):
    (tmp_path / "a.jsonl").write_text("")
    (tmp_path / "b.jsonl").write_text("\n\n")
    with pytest.raises(CorpusError, match="the corpus is empty"):
        count_file(tmp_path, engine="dask", client=client)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_scheduler_that_does_not_answer_is_a_clear_timeout(shards):
    address = f"tcp://127.0.0.1:{_free_port()}"  # nothing listens there
    with pytest.raises(TextsiftError, match=rf"no Dask scheduler answered at {address} within 1 s"):
        count_file(shards, engine="dask", scheduler=address, timeout=1)
    with pytest.raises(TextsiftError, match="not a Dask scheduler address.*tcp://HOST:PORT"):
        count_file(shards, engine="dask", scheduler="localhost")


def test_joblib_work_runs_on_the_cluster_workers(client):
    workers = set(client.scheduler_info()["workers"])

    def where(i):
        return i * i, distributed.get_worker().address  # raises outside a Dask worker

    with joblib_on_cluster(client=client):
        out = joblib.Parallel(n_jobs=-1)(joblib.delayed(where)(i) for i in range(6))
    assert [v for v, _ in out] == [0, 1, 4, 9, 16, 25]
    assert {w for _, w in out} <= workers


@pytest.mark.slow
def test_progress_is_told_of_every_partition_of_both_passes(client, shards):
    """progress(stage, done, total) counts partitions, from 0 to all 5 in each pass, never
    backwards -- also when the partitions are batched several to a task."""
    from textsift.engines import dask as engine

    parts = file_parts(shards, chunk_size=300)
    for max_tasks in (engine.MAX_TASKS, 2):  # a task per partition; then 3 + 2 in two tasks
        calls: list = []  # a new list per round: the lambda reads it at call time
        engine_max, engine.MAX_TASKS = engine.MAX_TASKS, max_tasks
        try:
            counted = count_dask(parts, client=client, split_every=2,
                                 progress=lambda *a: calls.append(a))  # noqa: B023
        finally:
            engine.MAX_TASKS = engine_max
        assert counted.equals(count_file(shards))
        assert [c[0] for c in calls] == sorted(c[0] for c in calls)  # pass 1, then pass 2
        for stage in engine.PASSES:
            done = [d for s, d, total in calls if s == stage]
            assert {total for s, d, total in calls if s == stage} == {5}
            assert done[0] == 0 and done[-1] == 5 and done == sorted(done)
            # one call per finished task at most (several may finish between two looks)
            assert len(done) - 1 <= (5 if max_tasks >= 5 else 2)


def test_batches_are_runs_of_consecutive_partitions_of_near_equal_size():
    from textsift.engines.dask import _batches

    assert _batches(list(range(5)), 256) == [[0], [1], [2], [3], [4]]
    assert _batches(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    sizes = [len(b) for b in _batches(list(range(10_000)), 256)]
    assert len(sizes) == 256 and sum(sizes) == 10_000 and max(sizes) - min(sizes) == 1
