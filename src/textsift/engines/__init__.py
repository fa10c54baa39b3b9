"""Counting engines beyond one in-memory matrix: streamed chunks and Dask."""
