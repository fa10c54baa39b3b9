"""Ctrl-C during a count, as a terminal sends it (SIGINT to every process of the foreground
group, the Dask workers included): one line, ``interrupted``, on stderr, exit code 130, the
same rule for every engine; nothing left running."""

import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(),
                                reason="watches the processes' open files in /proc")

CLI = [sys.executable, "-c", "from textsift.cli import main; main()"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """8 gzip JSONL files of 20,000 short reviews each: a few seconds of counting, each file
    open for a good part of a second (long enough to be seen open)."""
    root = tmp_path_factory.mktemp("interrupt")
    rng = random.Random(0)
    words = [f"w{i}" for i in range(2000)]
    lines = "".join(json.dumps({"text": " ".join(rng.choices(words, k=30)), "label": "ab"[i % 2]})
                    + "\n" for i in range(20_000))
    blob = gzip.compress(lines.encode(), compresslevel=1)
    for i in range(8):
        (root / f"part{i}.jsonl.gz").write_bytes(blob)
    return root


def _group(pgid: int) -> list[int]:
    """The live processes of the process group ``pgid``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
            if int(fields[2]) == pgid and fields[0] != "Z":
                pids.append(int(entry.name))
    return pids


def _reading(pgid: int, folder: Path) -> bool:
    """Whether a process of the group has a file of ``folder`` open (the count is under way:
    for the Dask engine, a worker runs a task, so the cluster is up)."""
    for pid in _group(pgid):
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd).startswith(str(folder)):
                    return True
            except OSError:
                continue
    return False


@pytest.mark.parametrize("engine", ["stream", "dask"])
def test_ctrl_c_is_one_line_and_exit_code_130(engine, corpus):
    if engine == "dask":
        pytest.importorskip("distributed")
    proc = subprocess.Popen([*CLI, "score", str(corpus), "--engine", engine, "--top", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # its own group, as a terminal job
    try:
        deadline = time.monotonic() + 180
        while not _reading(proc.pid, corpus):
            assert proc.poll() is None, f"ended before counting: {proc.communicate()}"
            assert time.monotonic() < deadline, "never started counting"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, err.splitlines(), out) == (130, ["interrupted"], "")
    deadline = time.monotonic() + 30
    while _group(proc.pid):  # the Dask workers end with the command
        assert time.monotonic() < deadline, f"left running: {_group(proc.pid)}"
        time.sleep(0.1)
