"""Option groups: options a command takes as one value, declared once.

:func:`option_group` gives a command a group of options -- each a name, an
``Annotated[type, typer.Option(...)]`` and a default -- in place of one of its parameters,
which receives the group's value: a command lists the group, not its options one by one
(``textsift adabag``'s estimator options, :data:`textsift.cli.adabag.MODEL_OPTIONS`;
``textsift score``'s significance and reference, :mod:`textsift.cli._score_groups`; the
corpus options of :func:`textsift.cli.options.corpus_options` are a group of the same kind).
"""

from __future__ import annotations

import functools
import inspect


def option_group(param: str, options: dict, make, *, lead: tuple[str, ...] = (),
                 trailing: bool = False):
    """A decorator: the command's parameter ``param`` becomes the options ``options`` (name ->
    ``(annotation, default)``), in its place (``trailing``: after the command's own
    parameters) -- but for those named in ``lead`` (an argument such as DATA), which come
    before the command's own parameters -- and the command receives
    ``make(**values)`` of the values given. The one place where a command's signature is
    rewritten: every group of options (the corpus options, the method parameters, the
    estimator options) is declared as such a dict beside the command that takes it."""

    def decorate(func):
        signature = inspect.signature(func, eval_str=True)  # real types, not strings
        added = {name: inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                         annotation=annotation, default=default)
                 for name, (annotation, default) in options.items()}
        first = [added.pop(name) for name in lead]
        group = list(added.values())
        own = [q for p in signature.parameters.values()
               for q in (([] if trailing else group) if p.name == param else [p])]
        params = first + own + (group if trailing else [])

        @functools.wraps(func)
        def command(**kw):
            values = {name: kw.pop(name) for name in options}
            return func(**kw, **{param: make(**values)})

        command.__signature__ = signature.replace(parameters=params)
        command.__annotations__ = {p.name: p.annotation for p in params}
        del command.__wrapped__  # typer must read the new signature, not the function's
        return command

    return decorate
