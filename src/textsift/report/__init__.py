"""Reports: plots, word clouds and the self-contained HTML report."""
