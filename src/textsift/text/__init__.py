"""Tokenising and vectorising: the count pass exact with scikit-learn's CountVectorizer
(``vectorize``: the options, the document-term matrix), its word and n-gram kernels
(``tokens``, ``ngrams``), character n-grams (``chars``), named tokenizers (``tokenizers``) and
languages: stop words and stemmers (``languages``). May import: errors, labels, reading.
"""

__all__: list[str] = []
