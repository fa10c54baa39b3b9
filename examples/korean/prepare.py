"""Write the binary NSMC corpus the Korean experiments read: the reviews of
``$TEXTSIFT_DATA/nsmc_korean/all.jsonl.gz`` whose ``sentiment`` is ``neg`` or ``pos`` (the
``mid`` ones, ratings 5-8, dropped, as NSMC's own benchmark drops them), with their
``split``, to ``results/korean/nsmc_binary.jsonl.gz`` (the TOMLs here read it).

    TEXTSIFT_DATA=../shared/data python examples/korean/prepare.py
"""

import gzip
import json
import os
from pathlib import Path

source = Path(os.environ.get("TEXTSIFT_DATA", "../shared/data")) / "nsmc_korean/all.jsonl.gz"
target = Path("results/korean/nsmc_binary.jsonl.gz")
target.parent.mkdir(parents=True, exist_ok=True)
kept = 0
with gzip.open(source, "rt", encoding="utf-8") as src, \
        gzip.open(target.with_suffix(".tmp"), "wt", encoding="utf-8") as out:
    for line in src:
        record = json.loads(line)
        if record["sentiment"] in ("neg", "pos"):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            kept += 1
target.with_suffix(".tmp").replace(target)
print(f"{kept:,} reviews (neg or pos) -> {target}")
