"""The help pages of the command line (``-h``, ``--help``), drawn with rich.

typer's own rich help costs more than the rest of ``textsift CMD -h`` together -- its renderer
imports rich's Markdown, traceback and pretty-printing modules (about 0.08 s) and draws every
option as nested renderables -- so the commands draw their help here instead: the usage, the
docstring's paragraphs (each re-flowed to the terminal's width), then the arguments, the
options in their panels (``rich_help_panel``) and the commands, one row each (a name longer
than its column wraps: :data:`NAMES`). A row says what
click's ``get_help_record`` says of the parameter (its names, the kind of value unless it is
a flag, the help, the default, whether it is required), as the documentation's CLI reference
does.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

OPTIONS = "Options"
#: The narrowest the column of the options' names may be made; it takes at most two fifths
#: of a wider terminal, so that a long list of choices (``--criterion <misclassification|
#: ...>``) wraps in its column instead of leaving the help a column of a few letters.
NAMES = 24


def format_help(command, ctx, formatter) -> None:
    """Write the help of ``command`` (a command or the group) into click's ``formatter``."""
    console = Console(highlight=False)  # the terminal's width and colours, as stdout has them
    with console.capture() as captured:
        console.print(Text.assemble(" ", ("Usage:", "yellow"), f" {_usage(command, ctx)}"))
        for i, paragraph in enumerate((command.help or "").split("\n\n")):
            console.print()
            text = Text(paragraph.removeprefix("\b\n"), style="" if i == 0 else "dim")
            console.print(Padding(text, (0, 1)))
        console.print()
        names = max(NAMES, console.width * 2 // 5)  # the help keeps the rest of the width
        for title, rows in _panels(command, ctx):
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold cyan", max_width=names, overflow="fold")
            table.add_column(overflow="fold")
            for name, help_text in rows:
                if len(name) > names:  # a long list of choices wraps at its bars
                    name = name.replace("|", " | ")
                table.add_row(name, help_text)
            console.print(Panel(table, title=title, title_align="left", box=box.ROUNDED,
                                border_style="dim"))
    formatter.write(captured.get())


def _usage(command, ctx) -> str:
    args = [p.metavar or p.name.upper() + ("..." if p.nargs == -1 else "")
            for p in command.get_params(ctx) if p.param_type_name == "argument"]
    if hasattr(command, "commands"):
        args.append("COMMAND [ARGS]...")
    return " ".join([ctx.command_path, "[OPTIONS]", *args])


def _panels(command, ctx) -> list[tuple[str, list]]:
    """``(title, rows)`` of each panel, in the order of their first parameter: the
    arguments, then the options' panels, then the commands of a group."""
    panels: dict[str, list] = {}
    for param in command.get_params(ctx):
        record = param.get_help_record(ctx)
        if param.param_type_name == "argument":
            name = param.metavar or param.name.upper()
            required = " [red][required][/]" if param.required else ""
            panels.setdefault("Arguments", []).append(
                (escape(name), Text.from_markup(escape(param.help or "") + required)))
        elif record is not None:  # None: a hidden option
            names, help_text = record
            panel = getattr(param, "rich_help_panel", None) or OPTIONS
            panels.setdefault(panel, []).append((escape(names.strip()), _dim_tail(help_text)))
    if hasattr(command, "commands"):
        panels["Commands"] = [(name, Text(_first_paragraph(cmd)))
                              for name in command.list_commands(ctx)
                              if not (cmd := command.get_command(ctx, name)).hidden]
    return list(panels.items())


def _dim_tail(help_text: str) -> Text:
    """An option's help, its ``[default: ...]`` and ``[required]`` in dim."""
    body, sep, tail = help_text.partition("  [")
    text = Text(body)
    if sep:
        text.append(" [" + tail, style="dim")
    return text


def _first_paragraph(command) -> str:
    return (command.short_help or command.help or "").split("\n\n")[0]
