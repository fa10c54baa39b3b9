"""Terms in context: short snippets of training documents around chosen terms.

:func:`find_snippets` reads the documents once, in order, and tokenises each the way the
vectorizer did (:class:`~textsift.vectorize.VectorizerOptions`: header stripping, the token
pattern, lowercasing, Snowball stemming), so a term -- a stem with ``stem=True`` -- is found
where the counts found it, and its surface form is what is highlighted. It keeps, for each
wanted term and class, the first ``quota[t, c]`` documents of that class containing the term
(one snippet per document, none twice), and stops reading as soon as every quota is full.

A document with a label list (label sets) serves each of its labels' classes; its snippets
then carry, as a fourth item, the classes of all its labels when it has several, so that a
page showing "the rest" of a class can leave out the documents that have that class too.

Written by hand: scikit-learn's analyzers return tokens without their character offsets,
which a snippet needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from ..corpus import strip_header
from ..errors import TextsiftError
from ..vectorize import VectorizerOptions

__all__ = ["find_snippets"]

#: ``(left context, the term as written, right context)``.
Snippet = tuple[str, str, str]

_SPACE = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _SPACE.sub(" ", text)


def find_snippets(documents: Iterable[tuple[str, object]], terms, class_index: dict,
                  quota: np.ndarray, opts: VectorizerOptions | None = None, words: int = 5,
                  max_chars: int = 60) -> list[list[list[Snippet]]]:
    """Snippets of ``terms`` in ``documents``, per term and class.

    Parameters
    ----------
    documents : iterable of (text, label) pairs
        Read once (a generator is fine); a label may be a list of labels.
    terms : sequence of str
        The wanted terms, as the vocabulary spells them (lowercased, stemmed).
    class_index : dict
        Label -> class column (labels outside it are skipped).
    quota : ndarray of shape (len(terms), n_classes), int
        Snippets wanted per term and class.
    opts : VectorizerOptions, optional
        How the documents were tokenised (default options when None).
    words, max_chars : int
        Context kept on each side of the term (at most ``words`` tokens and ``max_chars``
        characters, whitespace squashed).

    Returns
    -------
    list
        ``out[t][c]``, a list of at most ``quota[t, c]`` snippets, in document order: ``(left,
        term, right)``, and the sorted classes of the document's labels when it has several.
    """
    opts = opts or VectorizerOptions()
    terms = list(terms)
    quota = np.asarray(quota, dtype=np.int64)
    if quota.shape != (len(terms), len(set(class_index.values()))):
        raise TextsiftError(f"quota has shape {quota.shape}; expected one row per term "
                            "and one column per class")
    left = quota.copy()
    remaining = int(left.sum())
    # need[c]: term -> row, for the terms whose quota in class c is not yet full
    need = [{t: i for i, t in enumerate(terms) if left[i, c] > 0} for c in range(left.shape[1])]
    out: list[list[list[Snippet]]] = [[[] for _ in range(quota.shape[1])] for _ in terms]
    pattern = re.compile(opts.token_pattern)
    key = _token_key(opts)
    for text, label in documents if remaining > 0 else ():
        if isinstance(label, list | tuple | set | frozenset | np.ndarray):
            own = sorted({class_index[v] for v in map(_hashable, label) if v in class_index})
        else:
            own = [] if (c := class_index.get(_hashable(label))) is None else [c]
        wanted = [c for c in own if need[c]]
        if not wanted:
            continue
        if opts.strip_headers:
            text = strip_header(text)
        low = text.lower() if opts.lowercase else text
        # a cheap filter first (findall and set work run in C), then the offsets of the tokens
        # of a document that holds a wanted term (tokenised as written, each token lowercased:
        # lowercasing a whole text can change its length)
        tokens = set(pattern.findall(low))
        tokens = tokens if key is None else {key(t) for t in tokens}
        hits = set().union(*(need[c].keys() & tokens for c in wanted))
        if not hits:
            continue
        first: dict[str, int] = {}  # term -> the token where it first occurs
        spans = [m.span() for m in pattern.finditer(text)]
        for i, (a, b) in enumerate(spans):
            word = text[a:b].lower() if opts.lowercase else text[a:b]
            k = word if key is None else key(word)
            if k in hits and k not in first:
                first[k] = i
        tag = (own,) if len(own) > 1 else ()
        for k, i in first.items():
            a, b = spans[i]
            lo = spans[max(0, i - words)][0]
            hi = spans[min(len(spans) - 1, i + words)][1]
            snippet = (_squash(text[lo:a])[-max_chars:], text[a:b],
                       _squash(text[b:hi])[:max_chars], *tag)
            for c in wanted:
                t = need[c].get(k)
                if t is None or snippet in out[t][c]:
                    continue  # not wanted here, or the same words again (a quoted reply)
                out[t][c].append(snippet)
                left[t, c] -= 1
                remaining -= 1
                if left[t, c] == 0:
                    del need[c][k]
        if remaining <= 0:
            break  # read no further
    return out


def _token_key(opts: VectorizerOptions):
    """Lowercased token -> the term the vocabulary holds: its Snowball stem with
    ``stem=True`` (:func:`textsift.tokens.stem_words`, cached: a corpus has far fewer
    distinct tokens than tokens), else None (the token itself)."""
    if not opts.stem:
        return None
    from ..tokens import stem_words

    cache: dict[str, str] = {}

    def key(token: str) -> str:
        k = cache.get(token)
        if k is None:
            k = cache[token] = stem_words([token])[0]
        return k

    return key


def _hashable(label):
    return label.item() if isinstance(label, np.generic) else label
