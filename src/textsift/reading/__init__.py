"""Reading corpora: the records of JSON Lines, CSV and Parquet files (``formats``), directories
and globs of them (``sources``), the aclImdb and 20news-bydate directory trees (``trees``), and
the corpus they make with its labels, the bundled samples (``corpus``). May import: errors,
labels.
"""

__all__: list[str] = []
