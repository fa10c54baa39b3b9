"""Weighted lasso paths, the data-shared augmentation, AdaBag and bootstrap frequencies."""
