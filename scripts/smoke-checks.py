#!/usr/bin/env python3
"""The checks of scripts/test.sh's smoke runs: each reads one run's JSON and
exits non-zero with what is wrong.

Usage: scripts/smoke-checks.py CHECK RUN.json [MORE]
  (CHECK: main, runtimes, engines, state, net_pow, memory, load, replay;
  recorded RUN.json chain.json;
  clients RUN.json CLIENT...; ab AA.json KNOB.json KNOB_EXIT)
"""

import json
import sys


def read_run(path: str) -> dict:
    """The run, without the cross-machine reference every run records
    beside what it was asked for (`parameters.reference`)."""
    try:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read the run's JSON: {e}")
    run["results"] = [r for r in run["results"] if not r["parameters"].get("reference")]
    return run


def main_job(path: str) -> None:
    """The README's main job: complete, every default suite in it, every
    result verified before it was timed. Prints `verified N of M results`
    (the rehearsal records it)."""
    run = read_run(path)
    results = run["results"]
    verified = [r for r in results if r["verification"]["status"] == "passed"]
    groups = sorted({r["id"].split("/")[0] for r in results})
    print(f"verified {len(verified)} of {len(results)} results ({', '.join(groups)})")
    problems = []
    if not run["run"].get("complete", False):
        problems.append(f"the run is incomplete: {run['run'].get('incomplete_reason')}")
    missing = {"crypto", "hash", "rlp", "trie"} - set(groups)
    if missing:
        problems.append(f"default suites missing: {sorted(missing)}")
    if not results or len(verified) != len(results):
        wrong = [f"{r['id']} {r['implementation']['name']}" for r in results if r not in verified]
        problems.append(f"not verified: {wrong[:10]}")
    if problems:
        sys.exit("; ".join(problems))


def runtimes(path: str) -> None:
    run = read_run(path)
    runtimes = sorted({r["implementation"]["runtime"] for r in run["results"]})
    wrong = [
        f"{r['id']} {r['implementation']['name']}"
        for r in run["results"]
        if r["verification"]["status"] == "failed"
    ]
    print("runtimes measured:", ", ".join(runtimes), file=sys.stderr)
    want = {"rust", "go", "java", "python", "node"}
    missing = want - set(runtimes)
    if missing or wrong:
        sys.exit(f"missing runtimes {sorted(missing)}; wrong results {wrong}")


def engines(path: str) -> None:
    run = read_run(path)
    engines = sorted(
        {r["implementation"]["name"] for r in run["results"] if not r["id"].startswith("harness/")}
    )
    wrong = [
        f"{r['id']} {r['implementation']['name']}"
        for r in run["results"]
        if r["verification"]["status"] != "passed"
    ]
    missing = {"rocksdb", "mdbx", "redb", "pebble", "leveldb"} - set(engines)
    unstated = [
        r["id"]
        for r in run["results"]
        if not r["id"].startswith("harness/") and "durability" not in r["parameters"]
    ]
    print("engines measured:", ", ".join(engines), file=sys.stderr)
    if missing or wrong or unstated or not run["run"]["complete"]:
        sys.exit(
            f"missing engines {sorted(missing)}; not verified {wrong}; "
            f"durability not stated {unstated}; complete {run['run']['complete']}"
        )


def state(path: str) -> None:
    run = read_run(path)
    results = [r for r in run["results"] if r["id"].startswith("state/")]
    ids = {r["id"] for r in results}
    impls = {r["implementation"]["name"] for r in results}
    wrong = [r["id"] for r in results if r["verification"]["status"] != "passed"]
    no_gas = [
        r["id"]
        for r in results
        if r["implementation"]["name"] == "revm" and "gas_per_op" not in r["parameters"]
    ]
    inputs = {i.split("/")[2] for i in ids}
    measured = f"{len(ids)} ({', '.join(sorted(inputs))}) on {', '.join(sorted(impls))}"
    print(f"state ids measured: {measured}", file=sys.stderr)
    complete = run["run"]["complete"]
    shape = len(ids) == 36 and len(results) == 72 and impls == {"revm", "geth"}
    if not shape or inputs != {"10000", "10000-dropped"} or wrong or no_gas or not complete:
        sys.exit(
            f"expected 18 accesses x 2 cache states x revm and geth, got {len(results)} results "
            f"on {sorted(impls)}; not verified {wrong}; no gas {no_gas}; complete {complete}"
        )


def net_pow(path: str) -> None:
    run = read_run(path)
    impls = {
        r["implementation"]["name"] for r in run["results"] if not r["id"].startswith("harness/")
    }
    wrong = [
        f"{r['id']} {r['implementation']['name']}"
        for r in run["results"]
        if r["verification"]["status"] != "passed"
    ]
    missing = {"dyno-net", "geth", "ethash", "core-geth"} - impls
    remote = [r for r in run["results"] if r["id"] == "net/handshake/remote-geth"]
    if missing or wrong or not remote or not run["run"]["complete"]:
        sys.exit(
            f"missing {sorted(missing)}; not verified {wrong}; "
            f"remote-geth results {len(remote)}; complete {run['run']['complete']}"
        )


def memory(path: str) -> None:
    run = read_run(path)
    rows = [r for r in run["results"] if r["id"].startswith("mem/")]
    runtimes = {r["implementation"]["runtime"] for r in rows}
    problems = []
    if runtimes != {"rust", "go", "java", "node", "python"}:
        problems.append(f"runtimes {sorted(runtimes)}")
    for r in rows:
        p, name = r["parameters"], f"{r['id']} {r['implementation']['name']}"
        if r["verification"]["status"] != "passed":
            problems.append(f"{name} not verified")
        if not p.get("rss_peak_bytes") or "rss_start_bytes" not in p:
            problems.append(f"{name} has no peak RSS")
        other = r["implementation"]["runtime"] != "rust"
        if other and (
            "gc_count" not in p or "gc_overhead_pct" not in p or not p.get("fresh_worker")
        ):
            problems.append(f"{name}: GC figures or a fresh worker missing")
        if r["implementation"]["runtime"] == "java" and not p.get("heap_peak_bytes"):
            problems.append(f"{name}: no JVM heap peak")
    if problems or not run["run"]["complete"]:
        sys.exit("; ".join(problems) or "incomplete run")
    print(
        f"memory smoke run passed: {len(rows)} scenarios on {', '.join(sorted(runtimes))}",
        file=sys.stderr,
    )


def load(path: str) -> None:
    run = read_run(path)
    lab = run["load"][0]
    c, scan = lab["counts"], lab["chain_scan"]
    problems = []
    if not run["run"]["complete"]:
        problems.append(f"incomplete: {run['run']['incomplete_reason']}")
    # Every transaction accounted for: each sent one was accepted or rejected
    # with a class, each accepted one is included, pending or dropped, and the
    # included count is what a scan of the chain finds. (How many a slow
    # machine's geth includes in time is a measurement, not a test.)
    if c["submitted"] != 20000 or c["accepted"] + c["rejected"] != c["submitted"]:
        problems.append(f"sent transactions unaccounted for: {c}")
    if sum(c["rejected_by_class"].values()) != c["rejected"]:
        problems.append(f"rejections without a class: {c}")
    if c["included"] + c["pending"] + c["dropped"] != c["accepted"] or c["included"] == 0:
        problems.append(f"accepted transactions unaccounted for: {c}")
    if scan is None or scan["found"] != c["included"] or not scan["matches"]:
        problems.append(f"chain scan {scan} disagrees with counts {c}")
    if problems:
        sys.exit("; ".join(problems))
    print(
        f"load run passed: {c['included']} of {c['accepted']} accepted included, "
        f"chain scan {scan['found']}, "
        f"sustained {lab['throughput']['sustained']:.0f} tx/s, generator ceiling "
        f"{lab['generator']['self_test_rate']:.0f} req/s",
        file=sys.stderr,
    )


def load_types(path: str) -> None:
    """`dyno load --workload types --txs 110`: every type, checked on chain."""
    run = read_run(path)
    lab = run["load"][0]
    c, oc = lab["counts"], lab.get("onchain")
    problems = []
    if not run["run"]["complete"]:
        problems.append(f"incomplete: {run['run']['incomplete_reason']}")
    if c["included"] != 110 or c["reverted"] != 0:
        problems.append(f"not every transaction included and successful: {c}")
    if oc is None:
        problems.append("no on-chain check in the result")
    else:
        # The mix: transfer 4, legacy 2, accesslist 2, blob 1, setcode 2 (of 11).
        want = {"0": 20, "1": 20, "2": 40, "3": 10, "4": 20}
        if oc["by_type"] != want:
            problems.append(f"receipt types {oc['by_type']}, want {want}")
        if oc["failures"] or oc["delegations"] != 20 or oc["slots"] != 40:
            problems.append(f"on-chain check: {oc}")
        if oc["blob_txs"] != 10 or oc["blob_gas_used"] != oc["blobs"] * 131072:
            problems.append(f"blob gas: {oc}")
    blob_blocks = [b for b in lab["blocks"] if b.get("blob_gas_used")]
    if sum(b["blob_gas_used"] for b in blob_blocks) != (oc or {}).get("blob_gas_used"):
        problems.append("the blocks' blob gas differs from the receipts'")
    if any(b.get("blob_base_fee") is None for b in blob_blocks):
        problems.append("a block with blobs has no blob base fee")
    if problems:
        sys.exit("; ".join(problems))
    print(
        f"transaction types passed: {oc['checked']} checked on chain, types {oc['by_type']}, "
        f"{oc['blobs']} blobs in {len(blob_blocks)} blocks, {oc['delegations']} delegations",
        file=sys.stderr,
    )


def replay(path: str) -> None:
    """`dyno replay --quick --against geth`: an A/A of the pinned geth."""
    run = read_run(path)
    problems = []
    if not run["run"]["complete"]:
        problems.append(f"incomplete: {run['run']['incomplete_reason']}")
    classes = ["empty", "transfers", "mix", "full"]
    ids = {f"client/newpayload/{s}-{c}" for s in ["30M", "36M", "60M"] for c in classes}
    results = run["results"]
    for side in ["geth (A)", "geth (B)"]:
        seen = {r["id"] for r in results if r["implementation"]["name"] == side}
        if seen != ids:
            problems.append(f"{side}: ids {sorted(seen ^ ids)} missing or extra")
    for r in results:
        # Four pairs of runs, three measured blocks of the class each.
        if r["verification"]["status"] != "passed" or len(r["blocks"]) != 12:
            problems.append(
                f"{r['id']} {r['implementation']['name']}: "
                f"{r['verification']}, {len(r['blocks'])} blocks"
            )
        for b in r["blocks"]:
            t = (b.get("client_log") or {}).get("timing", {})
            if not all(
                k in t
                for k in ["execution_ms", "state_read_ms", "state_hash_ms", "commit_ms", "total_ms"]
            ):
                problems.append(f"{r['id']} block {b['number']}: no breakdown from geth's log")
                break
    # Every client start: its process read from /proc, its own metrics.
    clients = run.get("clients", [])
    if len(clients) != 24:
        problems.append(f"{len(clients)} client records, not 24 (8 runs of 3 sets)")
    for c in clients:
        if c["cpu_s"] is None or c["metrics"].get("chain_inserts_count", [0, 0])[1] <= 0:
            problems.append(f"client {c['implementation']} {c['set']} run {c['run']}: {c}")
            break
    # The method's own check: the same geth on both sides differs nowhere.
    if {c["id"] for c in run["comparisons"]} != ids:
        problems.append("a comparison is missing")
    for c in run["comparisons"]:
        if not c["delta_low"] <= 0 <= c["delta_high"]:
            problems.append(
                f"A/A {c['id']}: interval "
                f"[{c['delta_low']:+.3f}, {c['delta_high']:+.3f}] excludes 0"
            )
    if problems:
        sys.exit("; ".join(problems))
    worst = max(run["comparisons"], key=lambda c: abs(c["delta"]))
    print(
        f"replay A/A passed: {len(results)} results, every block VALID and joined to geth's log; "
        f"every interval holds 0 (largest estimate {worst['delta']:+.1%} on {worst['id']})",
        file=sys.stderr,
    )


def reprice(path: str, ops_path: str, priced_path: str) -> None:
    """`dyno gas --blocks --quick --client geth,geth:bare,revm,ethrex`: every series of
    specs/operations.toml replayed into each client, every block VALID,
    each fitted; its priced table (stdout) with a joint fit for every
    operation listed at two or more parameters, in each client."""
    import tomllib

    run = read_run(path)
    problems = []
    if not run["run"]["complete"]:
        problems.append(f"incomplete: {run['run']['incomplete_reason']}")
    with open(ops_path, "rb") as f:
        spec = tomllib.load(f)
    # One row a series: each operation's [[operation.series]].
    series = [(o["op"], s) for o in spec["operation"] for s in o.get("series", [])]
    want = {f"reprice/{op}/{s['param']}" for op, s in series}
    layout = spec["series"]
    # --quick: each quick budget at every level, quick_repeats times.
    levels = len(layout["quick_budgets_m"]) * layout["levels"] * layout["quick_repeats"]
    clients = ["geth", "geth:bare", "revm", "ethrex"]
    for client in clients:
        mine = [r for r in run["results"] if r["implementation"]["name"] == client]
        seen = {r["id"] for r in mine if "control" in r["reprice"]}
        if seen != want:
            problems.append(f"{client}: series {sorted(seen ^ want)} missing or extra")
        for r in mine:
            times = {f["time"] for f in r["reprice"]["fits"]}
            # geth's log gives its own execution and total time; revm and
            # ethrex have only dyno's.
            expected = {"new_payload"} | (
                {"client_execution", "client_total"} if client.startswith("geth") else set()
            )
            if r["verification"]["status"] != "passed" or len(r["blocks"]) != levels:
                problems.append(
                    f"{r['id']} {client}: {r['verification']}, {len(r['blocks'])} blocks"
                )
            if times != expected:
                problems.append(f"{r['id']} {client}: fits on {sorted(times)}")
            if any(s["iters"] <= 0 for s in r["samples"]):
                problems.append(f"{r['id']} {client}: a block with no operation counted")
            if "control" in r["reprice"] and not all(
                "net_per_op_ns" in f for f in r["reprice"]["fits"]
            ):
                problems.append(f"{r['id']} {client}: a fit without its glue taken off")
    with open(priced_path, encoding="utf-8") as f:
        priced = json.load(f)
    units: dict[str, set] = {}
    for op, s in series:
        if "units" in s:
            units.setdefault(op, set()).add(s["units"])
    multi = {op for op, u in units.items() if len(u) >= 2}
    for client in clients:
        joint = {j["op"] for j in priced.get("joint", []) if j["client"] == client}
        if joint != multi:
            problems.append(f"{client}: joint fits for {sorted(joint)}, want {sorted(multi)}")
    if problems:
        sys.exit("; ".join(problems))
    blocks = sum(len(r["blocks"]) for r in run["results"])
    print(
        f"op isolation passed: {len(want)} series and their controls, {blocks} measured blocks "
        f"VALID in {', '.join(clients)}, each fitted on dyno's time (and geth's own), less its "
        "glue; "
        f"joint fits of {', '.join(sorted(multi))} over their parameters",
        file=sys.stderr,
    )


def recorded(path: str, manifest_path: str) -> None:
    """`dyno replay --set DIR` of the blocks `dyno load --record DIR` saved."""
    run = read_run(path)
    with open(manifest_path, encoding="utf-8") as f:
        listed = json.load(f)["blocks"]
    problems = []
    if not run["run"]["complete"]:
        problems.append(f"incomplete: {run['run']['incomplete_reason']}")
    results = run["results"]
    ids = {r["id"].rsplit("-", 1)[-1] for r in results}
    if "load" not in ids or not ids <= {"load", "empty"}:
        problems.append(f"ids {sorted(r['id'] for r in results)}: not <name>-load and -empty")
    if any(r["verification"]["status"] != "passed" for r in results):
        problems.append(f"{[(r['id'], r['verification']) for r in results]}")
    blocks = sorted((b for r in results for b in r["blocks"]), key=lambda b: b["number"])
    if [b["hash"] for b in blocks] != [b["hash"] for b in listed]:
        problems.append(f"{len(blocks)} blocks timed, {len(listed)} recorded")
    txs = sum(b["transactions"] for b in blocks)
    if txs < 20000:
        problems.append(f"{txs} transactions replayed, fewer than the load's 20000")
    if any(not (b.get("client_log") or {}).get("timing") for b in blocks):
        problems.append("a block without geth's own log line")
    if problems:
        sys.exit("; ".join(problems))
    r = next(r for r in results if r["id"].endswith("-load"))
    print(
        f"recorded replay passed: {len(blocks)} blocks of the load run ({txs} transactions) "
        f"VALID in a fresh geth; loaded blocks' newPayload P50 {r['stats']['p50'] / 1e6:.2f} ms, "
        f"{r['parameters']['mgas_per_s']:.0f} MGas/s",
        file=sys.stderr,
    )


def clients(path: str, *names: str) -> None:
    """`dyno replay --client geth,ethereumjs --set 30M --blocks 1 --warmup 0`:
    every class's block VALID in each client, on one fork the Result names."""
    run = read_run(path)
    problems = []
    if not run["run"]["complete"]:
        problems.append(f"incomplete: {run['run']['incomplete_reason']}")
    results = run["results"]
    ids = sorted({r["id"] for r in results})
    for name in names:
        mine = {r["id"]: r for r in results if r["implementation"]["name"] == name}
        if sorted(mine) != ids or len(ids) != 4:
            problems.append(f"{name} has results for {sorted(mine)}, not the 4 classes")
        for r in mine.values():
            if r["verification"]["status"] != "passed" or len(r["blocks"]) != 1:
                problems.append(f"{name} {r['id']}: {r['verification']}, {len(r['blocks'])} blocks")
    forks = {c.get("fork") for c in run["clients"]}
    if len(forks) != 1 or None in forks:
        problems.append(f"the clients ran under {forks}, not one fork")
    if sorted(c["implementation"] for c in run["clients"]) != sorted(names):
        problems.append(f"client runs {[c['implementation'] for c in run['clients']]}")
    if problems:
        sys.exit("; ".join(problems))
    full = {r["implementation"]["name"]: r for r in results if r["id"].endswith("-full")}
    print(
        f"clients side by side passed: the 4 classes VALID in {', '.join(names)} under "
        f"{forks.pop()}; the full block's newPayload "
        + ", ".join(f"{n} {full[n]['stats']['p50'] / 1e6:.0f} ms" for n in names),
        file=sys.stderr,
    )


def byo(path: str) -> None:
    """`dyno run crypto/secp256k1-recover --adapter examples/scala-adapter
    --impl scala-example,libsecp256k1,geth`: the external adapter beside the
    others, every one verified and measured, and its provenance recorded."""
    run = read_run(path)
    want = {"scala-example", "libsecp256k1", "geth"}
    done = {
        r["implementation"]["name"]
        for r in run["results"]
        if r["id"] == "crypto/secp256k1-recover/valid"
        and r["verification"]["status"] == "passed"
        and r["incomplete_reason"] is None
        and r["samples"]
    }
    ext = [a for a in run.get("adapters", []) if a["name"] == "scala-adapter"]
    problems = []
    if want - done:
        problems.append(f"not measured and verified: {sorted(want - done)}")
    if not ext or not ext[0]["external"] or not ext[0]["source_digest"]:
        problems.append(f"no external provenance for scala-adapter: {run.get('adapters')}")
    elif ext[0].get("stale") is not False:
        # A stale worker is not the source its digest names: what ran is
        # an older build.
        problems.append(
            f"scala-adapter ran stale (its install does not match its sources): {ext[0]}"
        )
    if problems:
        sys.exit("; ".join(problems))
    print(f"external adapter: {ext[0]['adapter']} from {ext[0]['dir']}", file=sys.stderr)


def paired_verdict(p: dict) -> str:
    """One paired comparison's verdict, change with its interval, Holm p and passes."""
    return (
        f"{p['verdict']}, {p['delta']:+.1%} "
        f"[{p['delta_low']:+.1%}, {p['delta_high']:+.1%}], Holm p {p['p_holm']:.2g}, "
        f"passes {[round(x['statistic'], 3) for x in p['passes']]}"
    )


def ab(
    aa_path: str, knob_path: str, knob_exit: str, slowed: str, factor: str, aa_exit: str = "0"
) -> None:
    """`dyno ab --base (this dyno)`: an A/A, then the knob slowing one id by FACTOR."""
    problems = []
    aa, knob = read_run(aa_path), read_run(knob_path)
    for name, run in [("A/A", aa), ("knob", knob)]:
        if not run["run"]["complete"]:
            problems.append(f"{name}: incomplete: {run['run']['incomplete_reason']}")
        if not run.get("noise"):
            problems.append(f"{name}: no noise probe")
        for p in run["paired"]:
            if p["min_detectable"] is None or len(p["passes"]) < 2:
                problems.append(
                    f"{name} {p['id']} {p['implementation']}: {p['verdict']}, {p.get('note')}"
                )
    flagged = [p for p in aa["paired"] if p["verdict"] in ("regressed", "improved")]
    if flagged:
        problems.append(
            "A/A flagged: "
            + "; ".join(f"{p['id']} {p['implementation']}: {paired_verdict(p)}" for p in flagged)
        )
    if aa_exit != "0":
        problems.append(f"the A/A run exited {aa_exit}, not 0")
    caught = {
        p["implementation"]
        for p in knob["paired"]
        if p["id"] == slowed and p["verdict"] == "regressed"
    }
    others = [
        (p["id"], p["implementation"])
        for p in knob["paired"]
        if p["id"] != slowed and p["verdict"] in ("regressed", "improved")
    ]
    if len(caught) != 3 or others:
        missed = [
            f"{p['implementation']}: {paired_verdict(p)}"
            for p in knob["paired"]
            if p["id"] == slowed and p["implementation"] not in caught
        ]
        problems.append(
            f"knob: {slowed} regressed on {sorted(caught)} (want all 3; missed: {missed}); "
            f"others flagged: {others}"
        )
    if knob_exit != "1":
        problems.append(f"the knob run exited {knob_exit}, not 1")
    if problems:
        sys.exit("; ".join(problems))
    widest = max(p["min_detectable"] for p in aa["paired"])
    print(
        f"paired A/B passed: the A/A flagged none of {len(aa['paired'])} (largest detectable "
        f"change {widest:.1%}); the knob's x{factor} was flagged on all three {slowed} and "
        "nothing else (exit 1)",
        file=sys.stderr,
    )


CHECKS = {
    "main": main_job,
    "runtimes": runtimes,
    "engines": engines,
    "state": state,
    "net_pow": net_pow,
    "memory": memory,
    "load": load,
    "load-types": load_types,
    "replay": replay,
    "reprice": reprice,
    "recorded": recorded,
    "clients": clients,
    "ab": ab,
    "byo": byo,
}


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in CHECKS:
        sys.exit(__doc__)
    CHECKS[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
