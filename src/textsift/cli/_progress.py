"""How a command draws the progress of the library's steps on stderr: a bar or a spinner on a
terminal (rich, gone once the step ends), plain lines in a log (:class:`LogLines`: a step over
:data:`SLOW_S` seconds, then a line every :data:`LOG_EVERY_S` seconds). The library only calls
its ``progress`` callbacks; a new slow step gets one of :func:`stage_progress`,
:func:`task_progress` (counted) or :func:`step` (a step without a count), not its own
drawing. Imports only rich at the top (the command line's start-up: :mod:`textsift.cli._app`)."""

from __future__ import annotations

from contextlib import contextmanager

from rich.markup import escape

from ._app import console

#: A step that runs longer than this shows how far it is: at once as a bar on a terminal,
#: and from then on as lines in a log (stderr not a terminal: nohup, CI, a pipe).
SLOW_S = 2.0
#: Seconds between two lines of a step's progress in a log.
LOG_EVERY_S = 10.0


class LogLines:
    """A ``progress(stage, done, total)`` callback printing plain lines on stderr, for a log
    (where a bar draws nothing): ``counting: 40,000 of 120,000 documents (33%), 0:00:04 so
    far, about 0:00:08 left`` -- nothing during a step's first :data:`SLOW_S` seconds, then a
    line at most every :data:`LOG_EVERY_S` seconds, and the last one when a step that was
    shown ends (``done == total``). ``total`` None: a count without an end; ``done`` None:
    a step without a count (its time alone)."""

    def __init__(self, unit: str = "", first: float = SLOW_S, every: float = LOG_EVERY_S):
        self.unit, self.first, self.every = unit, first, every
        self.started: dict[str, float] = {}
        self.shown: dict[str, float] = {}

    def __call__(self, stage: str, done: int | None, total: int | None) -> None:
        import time
        from datetime import timedelta

        now = time.monotonic()
        start = self.started.setdefault(stage, now)
        last = self.shown.get(stage)
        ended = total is not None and done >= total
        if last == float("inf") or now - start < self.first or (
                last is not None and now - last < self.every and not ended):
            return  # its last line printed; too early; or shown a moment ago
        self.shown[stage] = float("inf") if ended else now
        spent = now - start
        unit = f" {self.unit}" if self.unit else ""
        if done is None:  # a step without a count (:func:`step`)
            what = ""
        elif total is None:
            what = f"{done:,}{unit}, "
        else:
            what = f"{done:,} of {total:,}{unit} ({done / max(total, 1):.0%}), "
        left = (f", about {timedelta(seconds=round(spent / done * (total - done)))} left"
                if total is not None and done is not None and 0 < done < total else "")
        console.print(f"{escape(stage)}: {what}{timedelta(seconds=round(spent))} so far"
                      f"{left}", highlight=False, soft_wrap=True)


    def end(self, stage: str) -> None:
        """The last line of a step without a count that was shown: the time it took."""
        import time
        from datetime import timedelta

        last = self.shown.get(stage)
        if last is not None and last != float("inf"):
            self.shown[stage] = float("inf")
            spent = time.monotonic() - self.started[stage]
            console.print(f"{escape(stage)}: done in {timedelta(seconds=round(spent))}",
                          highlight=False, soft_wrap=True)


@contextmanager
def stage_progress(unit: str = ""):
    """A ``progress(stage, done, total)`` callback (the engines': documents or partitions
    of each pass) drawing a line per stage on stderr -- a bar when the total is known, a
    count otherwise -- gone once the block ends; where stderr is not a terminal, plain lines
    for a log (:class:`LogLines`: a step over :data:`SLOW_S` seconds)."""
    if not console.is_terminal:
        yield LogLines(unit)
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
    tasks: dict[str, int] = {}
    with Progress(*columns, console=console, transient=True) as bar:

        def progress(stage: str, done: int, total: int | None) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(escape(stage), total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield progress


@contextmanager
def step(description: str):
    """A step the library has no count of (a corpus counted in memory, its n-grams, a
    vocabulary read again): on a terminal a spinner with the time spent, gone once it ends;
    in a log, a line once it has run :data:`SLOW_S` seconds and then every
    :data:`LOG_EVERY_S` seconds (``counting the corpus: 0:00:12 so far``), from a timer
    thread. It yields ``news(text)``, which names what the step is doing now (a
    ``progress`` callback of messages: the explore page's)."""
    if console.is_terminal:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                      console=console, transient=True) as bar:
            task = bar.add_task(escape(description), total=None)
            yield lambda news: bar.update(task, description=escape(f"{description}: {news}"))
        return
    import threading

    lines, stop, said = LogLines(), threading.Event(), [""]

    def tick() -> None:
        while not stop.wait(0.5):
            lines(description + said[0], None, None)

    def news(text: str) -> None:
        lines.end(description + said[0])
        said[0] = f" ({text})"
        lines(description + said[0], None, None)

    timer = threading.Thread(target=tick, name="textsift-step", daemon=True)
    lines(description, None, None)  # its start
    timer.start()
    try:
        yield news
    finally:
        stop.set()
        timer.join()
    lines.end(description + said[0])


@contextmanager
def task_progress(description: str, unit: str = ""):
    """A ``progress(done, total)`` callback (the library's, for one task: AdaBag's
    bootstraps, the permutations of ``--evidence``) drawn as :func:`stage_progress` draws a
    stage."""
    with stage_progress(unit) as progress:
        yield lambda done, total: progress(description, done, total)
