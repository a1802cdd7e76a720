#!/usr/bin/env python3
"""Compare what two dyno builds print and write, apart from timings and run ids.

    python3 scripts/compare-outputs.py OLD_DYNO NEW_DYNO [--work DIR] [--filter F]

Runs `dyno run --quick`, `dyno gas --quick`, `dyno check` and `dyno report`
with each binary, from the repository root, in every stdout format they
have (plus the JSON and Markdown files they write), and compares the two
sides after normalising each output to its shape:

- JSON: every key path (array positions collapsed to `[]`) and, for result
  documents, the (id, implementation) pairs; no values;
- CSV: the header, and the first two columns of each row (id and
  implementation);
- text, Markdown and HTML: numbers become `#` (a time's unit, which moves
  with the figure, goes too), run ids become `RUN`, runs of spaces one
  space (column widths follow the figures), HTML chart ids `c#`.

Measuring happens once per side and command; the other formats of `gas` are
rendered from the saved results (`dyno gas --from`), the way a user would,
and both binaries render the new side's saved runs with `dyno report`, so
those outputs differ by code alone. What a measurement decides (a verdict,
a gas flag, a target's badge) is normalised away with the figures.

Exit 0 when every output has the same shape (or differs only by lines that
match an --allow pattern: a change the comparison expects), 1 when any
differs; each difference is printed as the normalised lines that changed,
and both normalised copies are kept under --work.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

RUN_ID = re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}")
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")
# A figure's unit or mark: time, bytes, SI prefixes, percent, times (x, U+00D7).
UNIT = re.compile(r"#\s?(?:ns|µs|us|ms|s|KiB|MiB|GiB|B|k|M|G|%|x|\u00d7)(?![A-Za-z])")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?")


COMMIT = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?:-dirty)?\b")
# What a measurement decides, not the layout: the gas flag goes, a verdict
# (`~`, `~ (within ±N%)`, improved, regressed, faster, slower) reads VERDICT.
GAS_FLAG = re.compile(r"\s*\b(?:underpriced|overpriced) \u00d7#")
VERDICT = re.compile(
    r"~ \(within ±#\)|\b(?:improved|regressed|slower|faster)\b|(?<=\s)~(?=[\s;,)]|$)", re.M
)
# A summary's count per verdict: how many kinds appear is measured too.
VERDICT_COUNTS = re.compile(r"# VERDICT(?:, # VERDICT)*")
STATE = re.compile(r"\b(?:good|bad|warn|quiet|met|missed)\b")
TAG = re.compile(r"<(/?)([a-zA-Z0-9]+)([^>]*)>")
ATTR = re.compile(r'\b(id|class)="([^"]*)"')


def uniq(lines: list[str]) -> list[str]:
    """Consecutive repeats as one (a line per raw sample becomes one)."""
    return [line for k, line in enumerate(lines) if k == 0 or lines[k - 1] != line]


def shape_text(text: str) -> str:
    text = RUN_ID.sub("RUN", text)
    text = COMMIT.sub("COMMIT", text)
    text = TIMESTAMP.sub("TIME", text)
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    text = NUMBER.sub("#", text)
    text = UNIT.sub("#", text)
    # Ranges and intervals between figures (en dash U+2013, times U+00D7).
    text = re.sub(r"#(?:[\s.,\u2013\-/±\u00d7x~]*#)+", "#", text)
    text = GAS_FLAG.sub("", text)
    text = VERDICT.sub("VERDICT", text)
    text = VERDICT_COUNTS.sub("# VERDICT", text)
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.splitlines()]
    return "\n".join(uniq(lines)) + "\n"


def shape_html(text: str) -> str:
    """The page's skeleton: each element with its id and class, one per
    line, and the text of headings, table headers, captions and code (the
    ids, columns and fields a reader sees); chart geometry and figures go."""
    text = re.sub(r"<(style|script)>.*?</\1>", "", text, flags=re.S)
    out: list[str] = []
    keep = {"h1", "h2", "h3", "h4", "th", "figcaption", "code", "summary", "dt"}
    pos = 0
    open_tags: list[str] = []
    for m in TAG.finditer(text):
        between = text[pos : m.start()].strip()
        if between and open_tags and open_tags[-1] in keep:
            out.append("  " + shape_text(between).strip())
        pos = m.end()
        closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
        if closing:
            if open_tags and open_tags[-1] == name:
                open_tags.pop()
            continue
        if name in {"path", "line", "circle", "rect", "text", "tspan", "polyline", "title"}:
            continue
        # A badge's or tile's state (good, bad, ...) is what a figure decided.
        marks = " ".join(
            f"{k}={STATE.sub('STATE', shape_text(v).strip())}" for k, v in ATTR.findall(attrs)
        )
        out.append(f"<{name} {marks}>".replace(" >", ">"))
        if not attrs.rstrip().endswith("/"):
            open_tags.append(name)
    return "\n".join(uniq(out)) + "\n"


def key_paths(value: object, prefix: str = "") -> set[str]:
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            path = f"{prefix}.{k}"
            out.add(path)
            out |= key_paths(v, path)
    elif isinstance(value, list):
        for v in value:
            out |= key_paths(v, prefix + "[]")
    return out


def shape_json(text: str) -> str:
    value = json.loads(text)
    lines = sorted(key_paths(value))
    results = value.get("results") if isinstance(value, dict) else None
    if isinstance(results, list):
        pairs = {
            f"result {r.get('id')} {r.get('implementation', {}).get('name')}"
            for r in results
            if isinstance(r, dict)
        }
        lines += sorted(pairs)
    rows = value.get("rows") if isinstance(value, dict) else None
    if isinstance(rows, list):
        lines += sorted(
            {
                f"row {r.get('id', r.get('name'))} {r.get('implementation', r.get('input'))}"
                for r in rows
                if isinstance(r, dict)
            }
        )
    return "\n".join(lines) + "\n"


def shape_csv(text: str) -> str:
    lines = text.splitlines()
    if not lines:
        return ""
    out = [lines[0]]
    out += sorted({",".join(line.split(",")[:2]) for line in lines[1:] if line})
    return "\n".join(out) + "\n"


def shape(kind: str, text: str) -> str:
    if kind == "html":
        return shape_html(text)
    if kind == "json":
        return shape_json(text)
    if kind == "csv":
        return shape_csv(text)
    return shape_text(text)


class Side:
    def __init__(self, name: str, binary: Path, work: Path):
        self.name = name
        self.binary = binary
        self.dir = work / name
        self.dir.mkdir(parents=True, exist_ok=True)
        self.outputs: dict[str, tuple[str, str]] = {}
        # Both sides' binaries: a report names the one that measured.
        self.binaries: list[Path] = [binary]

    def dyno(self, label: str, kind: str, *args: str, stdin_ok: tuple[int, ...] = (0,)) -> str:
        env = dict(os.environ, NO_COLOR="1", DYNO_STORE=str(self.dir / "history.sqlite"))
        env.pop("DYNO_NO_STORE", None)
        started = time.monotonic()
        p = subprocess.run(
            [str(self.binary), *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        took = time.monotonic() - started
        print(
            f"  {self.name}: dyno {' '.join(args)}  ->  exit {p.returncode} ({took:.0f} s)",
            file=sys.stderr,
        )
        if p.returncode not in stdin_ok:
            sys.exit(f"{self.name}: `dyno {' '.join(args)}` exited {p.returncode}:\n{p.stderr}")
        if label:
            self.outputs[label] = (kind, self.neutral(p.stdout))
        return p.stdout

    def file(self, label: str, kind: str, path: Path) -> None:
        self.outputs[label] = (kind, self.neutral(path.read_text()))

    def neutral(self, text: str) -> str:
        """The side's own paths (its binary, its folder) as placeholders."""
        for binary in self.binaries:
            text = text.replace(str(binary), "DYNO")
        for name in ("old", "new"):
            text = text.replace(str(self.dir.parent / name), "WORK")
        return text


def exercise(side: Side, filter_: str) -> None:
    d = side.dir
    run, gas = d / "run.json", d / "gas.json"
    side.dyno("run --quick (table)", "text", "run", "--quick", "-q", filter_, "-o", str(run))
    side.file("run --quick: the JSON file", "json", run)
    side.file("run --quick: the Markdown file", "markdown", run.with_suffix(".md"))
    for fmt, kind in [("markdown", "markdown"), ("csv", "csv"), ("json", "json")]:
        side.dyno(
            f"run --quick --format {fmt}",
            kind,
            "run",
            "--quick",
            "-q",
            filter_,
            "--format",
            fmt,
            "-o",
            "-" if fmt == "json" else str(d / f"run-{fmt}.json"),
        )
    side.dyno("gas --quick (table)", "text", "gas", "--quick", "-q", "-o", str(gas))
    side.file("gas --quick: the JSON file", "json", gas)
    for fmt, kind in [("markdown", "markdown"), ("csv", "csv"), ("json", "json")]:
        side.dyno(f"gas --from --format {fmt}", kind, "gas", "--from", str(gas), "--format", fmt)
    for fmt, kind in [("table", "text"), ("markdown", "markdown"), ("json", "json")]:
        side.dyno(
            f"check (a saved run) --format {fmt}",
            kind,
            "check",
            "--baseline",
            str(run),
            str(run),
            "--format",
            fmt,
        )
    side.dyno(
        "check (measured now)",
        "text",
        "check",
        "--baseline",
        str(run),
        "--no-remeasure",
        "-q",
        stdin_ok=(0, 1),
    )


def report(side: Side, run: Path, gas: Path) -> None:
    """`dyno report` of the same files on both sides (the new side's runs,
    which hold what both builds need), so only the code differs."""
    for fmt, kind in [
        ("markdown", "markdown"),
        ("csv", "csv"),
        ("json", "json"),
        ("bmf", "json"),
        ("gobench", "text"),
    ]:
        side.dyno(f"report --format {fmt}", kind, "report", str(run), "--format", fmt)
    side.dyno("report --format html", "html", "report", str(run), str(gas), "--format", "html")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=Path, help="the dyno binary before the change")
    ap.add_argument("new", type=Path, help="the dyno binary after it")
    ap.add_argument("--work", type=Path, help="where outputs go (default: a new temporary folder)")
    ap.add_argument(
        "--filter",
        default="hash/keccak256/32B,crypto/secp256k1-recover,rlp/decode/tiny-account,precompile/ecrecover",
        help="what `dyno run --quick` measures",
    )
    ap.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="REGEX",
        help="a difference expected from the change: diff lines matching it are left out",
    )
    a = ap.parse_args()
    for name, path in (("OLD", a.old), ("NEW", a.new)):
        if not path.is_file() or not os.access(path, os.X_OK):
            ap.error(f"{name} {path}: not an executable file; give a built dyno binary")
    allowed = []
    for r in a.allow:
        try:
            allowed.append(re.compile(r))
        except re.error as e:
            ap.error(f"--allow {r!r}: not a regular expression ({e})")
    work = a.work or Path(tempfile.mkdtemp(prefix="dyno-compare-"))
    sides = [Side("old", a.old.resolve(), work), Side("new", a.new.resolve(), work)]
    for side in sides:
        side.binaries = [s.binary for s in sides]
    for side in sides:
        print(f"{side.name}: {side.binary}", file=sys.stderr)
        exercise(side, a.filter)
    for side in sides:
        report(side, sides[1].dir / "run.json", sides[1].dir / "gas.json")
    old, new = sides
    differ = 0
    allowed_seen = 0
    for label, (kind, text) in old.outputs.items():
        before = shape(kind, text)
        after = shape(*new.outputs[label])
        safe = re.sub(r"[^A-Za-z0-9]+", "-", label).strip("-")
        (old.dir / f"{safe}.shape").write_text(before)
        (new.dir / f"{safe}.shape").write_text(after)
        diff = [
            line
            for line in difflib.unified_diff(
                before.splitlines(), after.splitlines(), "old", "new", lineterm="", n=0
            )
            if line[:1] in "+-" and line[:3] not in ("+++", "---")
        ]
        unexpected = [d for d in diff if not any(r.search(d) for r in allowed)]
        if not diff:
            print(f"same     {label}")
        elif not unexpected:
            allowed_seen += 1
            print(f"allowed  {label}: " + "; ".join(diff[:4]))
        else:
            differ += 1
            print(f"DIFFER   {label}")
            for line in unexpected[:60]:
                print(f"    {line}")
    same = len(old.outputs) - differ - allowed_seen
    print(
        f"{len(old.outputs)} outputs: {same} the same shape, {allowed_seen} differing only as "
        f"allowed, {differ} differing; work folder: {work}"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
