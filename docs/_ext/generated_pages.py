"""Sphinx extension: the reference tables that must not drift from the code, written at every
build into ``docs/_generated/`` (git-ignored) and included by the guide pages.

* ``experiment_schema.md``: every table and key of an experiment file, from
  :mod:`textsift.experiment.schema` (the table the validation reads), and every learner and
  evaluation measure, from their registries (:data:`textsift.learners.LEARNERS`,
  :data:`textsift.learners.metrics.MEASURES`);
* ``methods_nominal.rst``, ``methods_ordinal.rst``: every registered scoring method with its
  formula and paper, from :data:`textsift.scores.REGISTRY` (in the API page of
  :mod:`textsift.scores` and in the guide);
* ``docs/reproductions/``: ``docs/reproductions.md`` (the one file the measurements are
  written in, also read on its own) cut into one page per section, each numbered heading
  given the label ``repro-<number>`` (``repro-2-2`` for "2.2 ...") for cross-references, and
  relative links and images re-rooted.

* ``cli.md``: every command of the ``textsift`` application, its help, usage and options, read
  from the application itself. (``sphinx-click`` cannot: typer vendors its own copy of click,
  whose commands are not ``click.Command`` instances.)
"""

from __future__ import annotations

import re
from pathlib import Path


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _default(value) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return f'`"{value}"`'
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | tuple):
        return "`[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in value) + "]`"
    if isinstance(value, dict):
        return "`{}`"
    return f"`{value}`"


def _key_table(keys) -> list[str]:
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for name, key in keys.items():
        rows.append(f"| `{name}` | {key.kind} | {_default(key.default)} | {_cell(key.doc)} |")
    return rows + [""]


def experiment_schema() -> str:
    from textsift.experiment.schema import CLASS_WEIGHT, LEARNER_KEYS, SCHEMA, TUNING_KEYS
    from textsift.learners import LEARNERS
    from textsift.learners.metrics import MEASURES

    out = []
    for table, keys in SCHEMA.items():
        out += [f"### `[{table}]`", ""] + _key_table(keys)
    out += ["### `[tuning]`", ""] + _key_table(TUNING_KEYS)
    out += ["### `[[learners]]`", "", "One table per learner (at least one)."] + [""]
    out += _key_table({**LEARNER_KEYS, "class_weight": CLASS_WEIGHT})
    out += ["| learner | what it is | tasks | its own parameters | default weighting |",
            "|---|---|---|---|---|"]
    for name, lr in LEARNERS.items():
        out.append(f"| `{name}` | {_cell(lr.summary)} | {', '.join(lr.label_kinds)} | "
                   f"{', '.join(f'`{p}`' for p in lr.params)} | `{lr.weighting}` |")
    out += ["", "### Evaluation measures (`metrics`)", "",
            "| measure | what it is | tasks | better |", "|---|---|---|---|"]
    for name, m in MEASURES.items():
        out.append(f"| `{name}` | {_cell(m.summary)} | {', '.join(m.label_kinds)} | "
                   f"{'lower' if m.lower_is_better else 'higher'} |")
    return "\n".join(out) + "\n"


def _rst_text(text: str) -> str:
    return "".join("\\" + ch if ch in "|*`_" else ch for ch in text)


def methods_table(kind: str) -> str:
    """reStructuredText for the registered methods of ``kind``, one definition each: name,
    summary, formula (a maths block), policies (the default in bold), parameters and the
    paper, all read from the registry."""
    from textsift.scores import REGISTRY

    out = []
    for name in sorted(n for n, m in REGISTRY.items() if m.kind == kind):
        m = REGISTRY[name]
        policies = ", ".join(f"**{a}**" if a == m.default_aggregate else a for a in m.aggregates)
        params = ", ".join(f"``{p}={v!r}``" for p, v in m.params.items()) or "none"
        absent = f" Absent terms: {_rst_text(m.absent)}." if m.absent else ""
        out += [f"``{m.label}``", f"    {_rst_text(m.summary)}", "",
                "    .. math::", "", f"       {m.formula}", "",
                f"    Policies: {policies}. Parameters: {params}.{absent}", "",
                f"    Source: {m.reference}.", ""]
    return "\n".join(out)


def cli_reference() -> str:
    """Markdown for the ``textsift`` command group and each of its commands: help text, usage
    and one row per visible option, as ``textsift CMD --help`` prints them."""
    import typer
    from typer._click import Context

    from textsift.cli import app

    group = typer.main.get_command(app)
    root = Context(group, info_name="textsift")
    out = []
    for name, cmd in [("textsift", group), *group.commands.items()]:
        ctx = root if cmd is group else Context(cmd, info_name=name, parent=root)
        title = name if cmd is group else f"textsift {name}"
        out += [f"(cli-{name})=", f"## `{title}`", ""]
        help_text = "\n".join(line for line in (cmd.help or "").splitlines() if line != "\b")
        out += [help_text.strip(), "", "```text", cmd.get_usage(ctx), "```", "",
                "| argument or option | meaning |", "|---|---|"]
        for param in cmd.get_params(ctx):
            record = param.get_help_record(ctx)
            if record:  # None for hidden options
                meaning = _cell(record[1]).replace("<", "\\<")
                out.append(f"| `{_cell(record[0])}` | {meaning} |")
        out.append("")
    return "\n".join(out)


_HEADING = re.compile(r"^(#{2,3}) (\d+(?:\.\d+)*)\.? (.*)$")
_LINK = re.compile(r"(!?\[[^\]]*\]\()(?![a-z]+:|/|#)([^)]+\))")


def reproduction_pages(source: Path) -> dict[str, str]:
    """``{file name: Markdown}``: an index, and one page per ``## N.`` section of ``source``
    (its headings raised one level, so the section is the page's title), with a
    ``(repro-N-M)=`` target before every numbered heading."""
    text = source.read_text(encoding="utf-8")
    head, *sections = re.split(r"(?m)^(?=## \d)", text)
    pages, toc = {}, []
    for section in sections:
        lines, fenced = [], False
        for line in section.splitlines():
            fenced ^= line.startswith("```")
            m = None if fenced else _HEADING.match(line)
            if m:
                lines += [f"(repro-{m.group(2).replace('.', '-')})=", "", line[1:]]
            else:
                lines.append(_LINK.sub(r"\1../\2", line))
        name = f"section-{_HEADING.match(section.splitlines()[0]).group(2)}"
        pages[f"{name}.md"] = "\n".join(lines).rstrip() + "\n"
        toc.append(name)
    title, _, intro = head.partition("\n")
    pages["index.md"] = "\n".join([title, _LINK.sub(r"\1../\2", intro).rstrip(), "",
                                   "```{toctree}", ":maxdepth: 2", "", *toc, "```", ""])
    return pages


def write_generated(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "experiment_schema.md").write_text(experiment_schema(), encoding="utf-8")
    (out / "cli.md").write_text(cli_reference(), encoding="utf-8")
    for kind in ("nominal", "ordinal"):
        (out / f"methods_{kind}.rst").write_text(methods_table(kind), encoding="utf-8")


def _generate(app, config=None):
    src = Path(app.srcdir)
    write_generated(src / "_generated")
    pages = src / "reproductions"
    pages.mkdir(exist_ok=True)
    for name, text in reproduction_pages(src / "reproductions.md").items():
        path = pages / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")  # unchanged pages keep Sphinx's cache


def setup(app):
    app.connect("config-inited", _generate)  # before the source files are listed
    return {"parallel_read_safe": True}
