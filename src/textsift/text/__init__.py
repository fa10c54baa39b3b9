"""Tokenising and vectorising: the count pass exact with scikit-learn's CountVectorizer
(``vectorize``: the options, the document-term matrix), its word and n-gram kernels
(``tokens``, ``ngrams``) and the running Python's Unicode tables they read (``unicode``),
character n-grams (``chars``), named tokenizers (``tokenizers``) and languages: stop words and
stemmers (``languages``). May import: errors, labels, reading.
"""

__all__: list[str] = []
