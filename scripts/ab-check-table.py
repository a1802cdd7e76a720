#!/usr/bin/env python3
"""The table of CI's paired A/B check run beside a busy core, from the
trials scripts/ab-check-busy.sh kept (OUTDIR/trial-K/ab-aa.json.gz,
ab-knob.json.gz, exit).

Usage: scripts/ab-check-table.py OUTDIR [OUTDIR...]

One row per trial: the check's exit (0 passed), what the A/A flagged, the
A/A's largest minimum detectable effect, and per implementation of the
slowed id its verdict, change and Holm p.
"""

import gzip
import json
import pathlib
import sys

SLOWED = "hash/keccak256/1KiB"


def load(path: pathlib.Path) -> dict:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print(
        "| trials | trial | check | A/A flagged | A/A largest detectable | knob on " + SLOWED + " |"
    )
    print("|---|--:|---|--:|--:|---|")
    for arg in sys.argv[1:]:
        root = pathlib.Path(arg)
        trials = sorted(root.glob("trial-*"), key=lambda p: int(p.name.split("-")[1]))
        if not trials:
            sys.exit(f"{root}: no trial-K folders (scripts/ab-check-busy.sh writes them)")
        for t in trials:
            rc = (t / "exit").read_text().strip()
            aa = load(t / "ab-aa.json.gz")
            knob = load(t / "ab-knob.json.gz")
            flagged = sum(p["verdict"] in ("regressed", "improved") for p in aa["paired"])
            widest = max(p["min_detectable"] for p in aa["paired"])
            cells = [
                f"{p['implementation']} {p['verdict']} {p['delta']:+.0%} (p {p['p_holm']:.2g})"
                for p in knob["paired"]
                if p["id"] == SLOWED
            ]
            verdict = "passed" if rc == "0" else f"failed (exit {rc})"
            print(
                f"| {root.name} | {t.name.split('-')[1]} | {verdict} | {flagged} of "
                f"{len(aa['paired'])} | {widest:.1%} | {'; '.join(cells)} |"
            )


if __name__ == "__main__":
    main()
