#!/usr/bin/env python3
"""Content-addressed freshness for cargo's kept target directory in CI.

Usage:
  scripts/source-times.py restore RECORD   before the build
  scripts/source-times.py record RECORD    after the build succeeded

Cargo decides whether a unit is fresh by comparing its sources' mtimes with
the time it was built. A fresh clone gives every file the clone's time, so
on a kept target directory cargo rebuilds every one of dyno's crates even
when not one byte changed (decision D29).

`record` writes the git blob id of every tracked file whose working copy is
what git has (so what this build compiled) to RECORD. `restore` reads it,
deletes it (a build that then fails leaves no record, and the next run
rebuilds), and sets each file's mtime:

- a file whose blob id is the recorded one gets 2000-01-01, older than
  anything built since, so cargo reuses what it compiled from these bytes;
- every other file (changed, new, untracked, or modified in the working
  tree), and every file when there is no record, gets the current time,
  newer than anything built, so cargo rebuilds what uses it.

The only way to keep a unit fresh is for the bytes it was compiled from to
be the recorded bytes: no file keeps an old mtime it happened to have.
"""

import os
import subprocess
import sys
import time

OLD = 946684800  # 2000-01-01T00:00:00Z


def say(message: str) -> None:
    print(f"source-times: {message}", file=sys.stderr)


def git(*args: str, check: bool = True) -> bytes:
    return subprocess.run(["git", *args], check=check, capture_output=True).stdout


def tracked() -> dict[str, str]:
    """Tracked path -> blob id, for files whose working copy is the index's."""
    modified = set(git("ls-files", "-z", "--modified", "--deleted").split(b"\0"))
    blobs = {}
    for entry in git("ls-files", "-z", "--stage").split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, blob, _stage = meta.split(b" ")
        # Symlinks and submodules are no sources of cargo's; their mtimes stay.
        if mode.startswith(b"100") and path not in modified:
            blobs[path.decode()] = blob.decode()
    return blobs


def read_record(path: str) -> dict[str, str]:
    recorded = {}
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                blob, sep, name = line.rstrip("\n").partition("\t")
                if not sep or len(blob) not in (40, 64):
                    sys.exit(
                        f"{path}:{n}: not a line of `blob<TAB>path`: "
                        "delete the file and the next build rebuilds dyno's crates"
                    )
                recorded[name] = blob
    except FileNotFoundError:
        pass
    return recorded


def restore(record: str) -> None:
    recorded = read_record(record)
    if os.path.exists(record):
        os.remove(record)
    now = time.time()
    same = changed = 0
    for path, blob in tracked().items():
        t = OLD if recorded.get(path) == blob else now
        os.utime(path, (t, t))
        same += t == OLD
        changed += t != OLD
    others = git("ls-files", "-z", "--others", "--exclude-standard", "--modified")
    for p in filter(None, others.split(b"\0")):
        if os.path.isfile(p):
            os.utime(p, (now, now))
            changed += 1
    # The index's stat data now matches the files, so no later git command
    # rewrites it (dyno's build script watches it).
    # (It exits 1 when a tracked file is modified: that is no error here.)
    git("update-index", "-q", "--refresh", check=False)
    if recorded:
        say(f"{same} files as the last build compiled them, {changed} changed or new")
    else:
        say(f"no record of the last build's sources: all {changed} files are new to cargo")


def record(record: str) -> None:
    tmp = record + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for path, blob in sorted(tracked().items()):
            f.write(f"{blob}\t{path}\n")
    os.replace(tmp, record)


def main() -> None:
    if len(sys.argv) != 3 or sys.argv[1] not in ("restore", "record"):
        sys.exit(__doc__)
    try:
        {"restore": restore, "record": record}[sys.argv[1]](sys.argv[2])
    except subprocess.CalledProcessError as e:
        why = e.stderr.decode(errors="replace").strip()
        sys.exit(f"git {' '.join(e.cmd[1:])} failed: {why} (run this in dyno's clone)")
    except OSError as e:
        sys.exit(f"{e.filename}: {e.strerror}")


if __name__ == "__main__":
    main()
