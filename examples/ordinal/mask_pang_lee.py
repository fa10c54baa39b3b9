"""Write a copy of Pang & Lee's scale data with the critic's grade masked.

Many reviews state the grade in the text (``RATING: ***``, ``I give it ** 1/2``,
``Rating: 6.0``, ``RATING (0 TO 10): 7``, ``*** out of ****``; see the data README), which
would let a learner read the label instead of the review. Every such grade expression is
replaced by a space; star legends (``**** = A must see film ...``) lose their stars.
MPAA ratings (``MPAA Rating: R``) are not grades and are kept.

    python examples/ordinal/mask_pang_lee.py ../shared/data/pang_lee_scale/all.jsonl.gz \
        results/ordinal/pang_lee_masked.jsonl.gz
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
from pathlib import Path

GRADE = re.compile(
    r"""
    (?<!MPAA\ )\brating\b\s*(?:\([^)\n]*\))?\s*:[^\n]*   # "RATING: ***", "Rating (0 to 10): 7"
    | \balternative\ scale\b\s*:?[^\n]*                  # Berardinelli's second scale
    | (?:\*\s*)+(?:1/2|\xbd)?                            # star runs, "** 1/2"
    | \b\d+(?:\.\d+)?\s*(?:/|out\ of)\s*(?:4|5|10|four|five|ten)\b  # "3.5/4", "7 out of 10"
    | \b(?:1/2|half)\ of\ a\ star\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


def mask(text: str) -> str:
    return GRADE.sub(" ", text)


def main(src: str, dst: str) -> None:
    dst_path = Path(dst)
    dst_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst_path.with_name(dst_path.name + ".tmp")
    changed = total = 0
    with (gzip.open(src, "rt", encoding="utf-8") as fin,
          gzip.open(tmp, "wt", encoding="utf-8") as fout):
        for line in fin:
            record = json.loads(line)
            masked = mask(record["text"])
            changed += masked != record["text"]
            total += 1
            record["text"] = masked
            fout.write(json.dumps(record, ensure_ascii=False) + "\n")
    os.replace(tmp, dst_path)
    print(f"masked a grade in {changed} of {total} reviews -> {dst_path}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
