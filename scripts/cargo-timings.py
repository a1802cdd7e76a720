#!/usr/bin/env python3
"""Every unit of a `cargo build --timings` report, slowest first, as TSV.

Usage: scripts/cargo-timings.py target/cargo-timings/cargo-timing.html > units.tsv

Columns: seconds (the unit's own wall time; units overlap on several
cores), crate, version, target, mode. The last line is a comment with the
number of units, and the crates built in more than one configuration in
that one invocation: cargo builds a crate once per distinct set of features
and dependencies, so a crate that build scripts and proc macros use with
other features than dyno's code does (resolver 2) is built once for each.
A unit built twice with the same configuration can only come from a second
cargo invocation, which scripts/test.sh guards against separately.
"""

import collections
import json
import re
import sys


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            html = f.read()
    except OSError as e:
        sys.exit(f"{sys.argv[1]}: cannot read the timings report: {e}")
    found = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.DOTALL)
    if not found:
        sys.exit(f"{sys.argv[1]}: no UNIT_DATA in this file: is it a cargo --timings report?")
    units = json.loads(found.group(1))
    units.sort(key=lambda u: -u["duration"])
    print("seconds\tcrate\tversion\ttarget\tmode")
    seen = collections.Counter()
    for u in units:
        target = u["target"].strip() or "lib"
        print(f"{u['duration']:.1f}\t{u['name']}\t{u['version']}\t{target}\t{u.get('mode', '')}")
        seen[(u["name"], u["version"], target)] += 1
    twice = sorted(k for k, n in seen.items() if n > 1)
    print(
        f"# {len(units)} units; crates built in more than one configuration: {len(twice)}"
        + (": " + ", ".join(f"{n} {v} {t}" for n, v, t in twice) if twice else "")
    )


if __name__ == "__main__":
    main()
