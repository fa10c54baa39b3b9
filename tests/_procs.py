"""Live processes read from ``/proc`` (Linux), for the tests that kill commands and look for
what they leave: the children of a process, the members of a process group."""

from __future__ import annotations

from pathlib import Path

#: Fields of ``/proc/PID/stat`` after "pid (comm) ": 0 the state, 1 the parent, 2 the group.
PARENT, GROUP = 1, 2


def live(field: int, value: int) -> list[int]:
    """The live (not zombie) processes whose ``field`` of ``/proc/PID/stat`` is ``value``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[field]) == value and fields[0] != "Z":
                found.append(int(entry.name))
    return found
