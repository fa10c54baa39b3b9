"""The DATA of a command as given: ``-``, the corpus piped on standard input, made a file
(:func:`from_stdin`), and a path that does not exist refused at once (:func:`check_paths`),
before the command imports what it computes with."""

from __future__ import annotations

from pathlib import Path

__all__ = ["STDIN", "check_paths", "from_stdin"]

#: DATA that reads the corpus from standard input.
STDIN = "-"


def from_stdin(paths, allowed: bool, command: str) -> Path:
    """DATA ``-``: standard input read whole into a temporary file (removed at exit) named
    for its format -- gzip by its magic bytes, Parquet by ``PAR1``, JSON Lines when its
    first character is ``{``, else CSV -- so that every reader and engine reads it as a
    file. Refused with other DATA, where the command keeps its corpus's path for a later
    run (``ordinal-eval``: a resumable experiment), on a terminal and when nothing comes."""
    import atexit
    import shutil
    import sys
    import tempfile
    import zlib

    from ..errors import TextsiftError

    if len(paths) > 1:
        raise TextsiftError("DATA - (standard input) is the whole corpus: give it alone, or "
                            "give files")
    if not allowed:
        raise TextsiftError(f"{command} keeps its corpus's path to resume the run, and "
                            "standard input (-) has none: write the data to a file and give "
                            "its path")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None or sys.stdin.isatty():
        raise TextsiftError("DATA - reads the corpus from standard input, and none is piped: "
                            f"pipe it (cat corpus.jsonl | textsift {command} - ...), or give "
                            "a file")
    data = stream.read()
    if not data.strip():
        raise TextsiftError("DATA - reads the corpus from standard input, and it is empty: "
                            f"pipe the corpus into it (cat corpus.jsonl | textsift {command} "
                            "- ...)")
    gz = data[:2] == b"\x1f\x8b"
    head = data[:65536]
    if gz:
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head)
        except zlib.error:
            head = b""
    if head[:4] == b"PAR1" and not gz:
        suffix = ".parquet"
    else:
        first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        suffix = (".jsonl" if first == b"{" else ".csv") + (".gz" if gz else "")
    folder = Path(tempfile.mkdtemp(prefix="textsift-stdin-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / f"stdin{suffix}"
    path.write_bytes(data)
    return path


def check_paths(paths) -> None:
    """A corpus path that does not exist (not a glob pattern) is an error at once, before
    the command imports what it computes with (seconds on a busy machine)."""
    from glob import has_magic

    from ..errors import missing_path

    for path in paths:
        if not has_magic(str(path)) and not path.exists():
            raise missing_path(path)
