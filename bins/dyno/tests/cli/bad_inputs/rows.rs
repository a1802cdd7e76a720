//! The table of bad inputs: each a command line, the exit code it must give, what its first line must say, and what must be kept.

use super::*;

pub(crate) const ROWS: &[Row] = &[
    // Flags.
    row(
        "run --samples 4",
        2,
        "invalid value '4' for '--samples <N>'",
    ),
    row(
        "run --samples 0",
        2,
        "invalid value '0' for '--samples <N>'",
    ),
    row(
        "run --samples lots",
        2,
        "invalid value 'lots' for '--samples <N>'",
    ),
    row("run --bogus", 2, "unexpected argument '--bogus'"),
    row("frobnicate", 2, "unrecognized subcommand 'frobnicate'"),
    row("help --help", 0, ""),
    row("gas --fork nosuch", 2, "--fork"),
    row("gas --factor 1", 2, "--factor 1 cannot flag anything"),
    row("gas --anchor fast", 2, "\"fast\" is not an anchor"),
    row(
        "report @/ok.json --trend-runs 0",
        2,
        "invalid value '0' for '--trend-runs <N>'",
    ),
    // Filters.
    row("run ''", 2, "the filter \"\" holds no pattern"),
    row("run ,", 2, "the filter \",\" holds no pattern"),
    row(
        "run hash,crpyto",
        2,
        "\"crpyto\" matches no benchmark id (did you mean \"crypto\"?)",
    ),
    row(
        "run zzzzqq",
        2,
        "\"zzzzqq\" matches no benchmark id; see `dyno list`",
    ),
    row("list crpyto", 2, "(did you mean \"crypto\"?)"),
    row("run hash --impl ''", 2, "--impl is empty"),
    row(
        "run hash --impl k257",
        2,
        "--impl: unknown implementation \"k257\"",
    ),
    // dyno replay: refused before any block is made or client started.
    row(
        "replay --client reth",
        2,
        "--client \"reth\": the clients dyno installs are ethereumjs, ethrex, geth, geth-1.17.7 and revm",
    ),
    row(
        "replay --client geth,geth",
        2,
        "--client geth,geth: geth is named twice",
    ),
    row(
        "replay --client geth,revm --against geth",
        2,
        "an A/B compares one client (A) with another (B)",
    ),
    row(
        "replay --fork cancun",
        2,
        "\"cancun\": dyno makes its chains under prague or osaka",
    ),
    row(
        "replay --fork prague --set 30M --blocks 1 --warmup 0 --client-cmd 'x {jwt}'",
        2,
        "it must put the Engine API on {authrpc_port}",
    ),
    // dyno client check: refused before any client starts.
    row(
        "client check revm",
        2,
        "revm runs inside dyno, with no Engine API to check",
    ),
    row(
        "client check nethermind",
        2,
        "--client \"nethermind\": the clients dyno installs are",
    ),
    row(
        "client check --client-cmd 'my-client --port 1'",
        2,
        "it must put the Engine API on {authrpc_port} with the secret in {jwt}",
    ),
    row(
        "replay --set 31M",
        2,
        "--set \"31M\": choose from 30M, 36M, 60M",
    ),
    // Lists with a stray comma or a name twice, and flags that would drop
    // one another: refused before anything starts (issue 51, list 11).
    row(
        "gas --blocks --client geth,,revm",
        2,
        "--client geth,,revm: an empty choice",
    ),
    row(
        "gas --blocks --client revm,revm",
        2,
        "--client revm,revm: revm is named twice",
    ),
    row(
        "gas --blocks --client revm --rounds 0",
        2,
        "--rounds 0: give at least 1 round",
    ),
    // `:bare` (caches off) on a client that has none to turn off.
    row(
        "gas --blocks --client revm:bare",
        2,
        "--client revm:bare: revm in dyno's process has no result cache and no prefetcher",
    ),
    row(
        "replay --client ethereumjs:bare",
        2,
        "--client ethereumjs:bare: ethereumjs has no result cache or prefetcher to turn off",
    ),
    row(
        "gas --blocks --client revm --only ecrecover,,sha256",
        2,
        "--only ecrecover,,sha256: an empty choice",
    ),
    row(
        "gas --blocks --client nethermind",
        2,
        "the clients dyno installs are ethereumjs, ethrex, geth, geth-1.17.7 and revm (dyno's own, in-process)",
    ),
    row(
        "gas --blocks --client revm -o out.md",
        2,
        "the .md file written beside it would be the same file",
    ),
    row(
        "gas --blocks --client revm --compare @/peer-empty.csv",
        2,
        "a header and no rows",
    ),
    row(
        "gas --blocks --client revm --compare @/peer-twice.csv",
        2,
        ":3: ecrecover \"\" for n is given twice (first on line 2)",
    ),
    row(
        "replay --set 30M,30M",
        2,
        "--set 30M,30M: 30M is named twice",
    ),
    row(
        "replay --client geth --client-cmd 'x {authrpc_port} {jwt}'",
        2,
        "the argument '--client <NAME,...>' cannot be used with '--client-cmd <CMD>'",
    ),
    row(
        "replay --against geth --against-cmd 'x {authrpc_port} {jwt}'",
        2,
        "the argument '--against <NAME>' cannot be used with '--against-cmd <CMD>'",
    ),
    row(
        "replay --against geth --pairs 2",
        2,
        "an A/B needs at least 3 pairs of runs",
    ),
    row(
        "replay --client-cmd true",
        2,
        "it must put the Engine API on {authrpc_port}",
    ),
    row(
        "replay --set @/nowhere",
        2,
        "or give a chain folder (a directory holding genesis.json and blocks.rlp",
    ),
    row(
        "replay --set @/chain-noid",
        2,
        "chain-noid/genesis.json: field `config.chainId`: missing",
    ),
    row(
        "replay --set @/chain-cut",
        2,
        "chain-cut/blocks.rlp: block 0 (at byte 0): the block's list: input too short",
    ),
    row(
        "replay --client revm --set @/chains/30M",
        2,
        "30M: revm replays dyno's own block sets",
    ),
    row(
        "load --node anvil --record @/rec",
        2,
        "rec: records the blocks of one geth that dyno starts",
    ),
    row(
        "load --record @/adir-full",
        2,
        "adir-full: it exists and is not an empty folder",
    ),
    row(
        "ab hash/keccak256/1KiB",
        2,
        "dyno ab needs the other side: --base PATH",
    ),
    row(
        "ab --base @/nowhere hash/keccak256/1KiB",
        2,
        "nowhere: no such file; give the path of another dyno binary",
    ),
    row(
        "ab --base-adapter go hash",
        2,
        "--base-adapter \"go\": write RUNTIME=FOLDER",
    ),
    row(
        "ab --base-adapter cobol=@/adir hash",
        2,
        "no adapter \"cobol\"",
    ),
    row(
        "ab --base-adapter go=@/adir hash",
        2,
        "adir: no `run` in that folder",
    ),
    row(
        "ab --base @/ok.json --threshold 2 hash",
        2,
        "--threshold 2: give a fraction between 0 and 1",
    ),
    row("replay --blocks 0", 2, "--blocks 0"),
    row("replay --floor 2", 2, "--floor 2: give a fraction"),
    row("replay --confidence 95", 2, "--confidence 95: give a level"),
    row(
        "replay -o -",
        2,
        "-o -: the replay prints its result with --format json",
    ),
    // Where results go: refused before anything is measured.
    row("ONE -o @/adir", 2, "adir: is a directory"),
    row(
        "ONE -o @/afile/run.json",
        2,
        "afile is a file, not a folder",
    ),
    row(
        "ONE -o @/afile/x/y/run.json",
        2,
        "afile is a file, not a folder",
    ),
    row("ONE -o @/ro.json", 2, "ro.json: the file is read-only"),
    row(
        "ONE -o @/rodir/run.json",
        2,
        "rodir: the folder is read-only",
    ),
    row(
        "ONE -o out.md",
        2,
        "the .md file written beside it would be the same file",
    ),
    row("ONE -o ''", 2, "a value is required for '--out <FILE>'"),
    row("ONE --instructions -o -", 2, "-o - with --instructions"),
    row(
        "gas --quick -o -",
        2,
        "-o -: `dyno gas` prints its table on stdout",
    ),
    // ... and where a write fails at the end: the run is kept elsewhere.
    measured(
        "ONE -o %full",
        2,
        "could not write the results to ",
        "dyno-results/*.json",
    ),
    measured("ONE -o %null", 0, "dyno: wrote ", "-"),
    measured("ONE -o -", 0, "wrote the result JSON to stdout", "stdout"),
    measured("ONE -o link.json", 0, "dyno: wrote", "target.json"),
    row("report @/ok.json -o @/ok.json", 2, "that is also the input"),
    // Specs and vectors.
    row(
        "--specs @/specs-bad list",
        2,
        "hash.toml:2: unknown field `default`",
    ),
    row("--specs /nonexistent/specs list", 2, "/nonexistent/specs"),
    measured(
        "--vectors @/vt ONE -o run.json",
        1,
        "dyno: FAILED hash/keccak256/32B on tiny-keccak",
        "run.json",
    ),
    measured(
        "--vectors @/varray ONE -o run.json",
        2,
        "the file holds an array; a vector file is a JSON object",
        "run.json",
    ),
    // Result files.
    row(
        "compare @/ok.json @/nosuch.json",
        2,
        "nosuch.json: no such file",
    ),
    row("compare @/ok.json @/notjson.json", 2, "notjson.json:1:"),
    row(
        "compare @/ok.json @/array.json",
        2,
        "a JSON array, not an object",
    ),
    row(
        "compare @/ok.json @/v7.json",
        2,
        "schema_version 7 is not supported",
    ),
    row(
        "compare @/ok.json @/vstr.json",
        2,
        "schema_version is \"1\", a string; it must be the number 1",
    ),
    row(
        "check --baseline @/nosuch.json @/ok.json",
        2,
        "nosuch.json: no such file; give an existing baseline or result file",
    ),
    row(
        "check --baseline @/ok.json @/wrong.json",
        1,
        "dyno: WRONG result",
    ),
    row("check --baseline @/ok.json @/ok.json", 0, ""),
    // Baselines.
    row(
        "baseline save main --from @/wrong.json --reason x --no-store",
        1,
        "nothing saved: every result in",
    ),
    row(
        "baseline save 'bad name' --from @/ok.json --reason x",
        2,
        "baseline name",
    ),
    row(
        "baseline save main --from @/ok.json --reason ' '",
        2,
        "--reason is empty",
    ),
    // Stores.
    row(
        "history --store missing.sqlite",
        2,
        "missing.sqlite: no run history there",
    ),
    row(
        "compare latest latest~1 --store missing.sqlite",
        2,
        "no run history there",
    ),
    row(
        "baseline list --store missing.sqlite",
        2,
        "no run history there",
    ),
    row(
        "history --store mysql://u:HUNTER2SECRET@h/db",
        2,
        "unknown store scheme \"mysql\"",
    ),
    with_env(
        "ONE --store mysql://u:HUNTER2SECRET@h/db",
        &[("DYNO_NO_STORE", None)],
        2,
        "mysql://u:***@h/db: unknown store scheme \"mysql\"",
    ),
    row("history --store @/adir", 2, "it is a folder"),
    row(
        "history --store @/afile",
        2,
        "the file is not a SQLite database",
    ),
    row(
        "history --store @/h.sqlite --import @/notjson.json",
        2,
        "notjson.json:1:",
    ),
    row(
        "history --import /nonexistent/r.json",
        2,
        "/nonexistent/r.json: No such file",
    ),
    row(
        "compare latest latest~1 --store @/h.sqlite",
        2,
        "does not hold that many runs",
    ),
    row(
        "compare latest~x latest --store @/h.sqlite",
        2,
        "write latest~N",
    ),
    // The environment.
    with_env(
        "list hash",
        &[("DYNO_NO_STORE", Some("maybe"))],
        2,
        "DYNO_NO_STORE=\"maybe\": not a yes or no",
    ),
    with_env("list hash", &[("DYNO_SPECS", Some(""))], 0, ""),
    with_env("list hash", &[("DYNO_NO_STORE", Some(""))], 0, ""),
    with_env(
        "history",
        &[("DYNO_STORE", Some(""))],
        2,
        "no run history there",
    ),
    // The load lab refuses before it starts a node.
    row(
        "load --rpc http://u:HUNTER2SECRET@127.0.0.1:1",
        2,
        "credentials in the URL",
    ),
    row("load --rpc ftp://127.0.0.1:1", 2, "unsupported scheme"),
    // dyno load --fleet and dyno join --broker: refused before any node
    // starts; a broker nobody listens for is said with how to start one.
    row(
        "load --fleet mqtt://127.0.0.1:1/t --fleet-key @/fleet.key --self-test",
        2,
        "cannot reach the MQTT broker at mqtt://127.0.0.1:1/t",
    ),
    row(
        "join --broker mqtt://127.0.0.1:1/t --key @/fleet.key --name w1",
        2,
        "cannot reach the MQTT broker at mqtt://127.0.0.1:1/t",
    ),
    // The fleet's key: required, its owner's alone, 64 hex digits.
    row(
        "load --fleet mqtt://127.0.0.1:1/t --self-test",
        2,
        "--fleet needs --fleet-key FILE",
    ),
    row(
        "join --broker mqtt://127.0.0.1:1/t",
        2,
        "the following required arguments were not provided",
    ),
    row(
        "join --broker mqtt://127.0.0.1:1/t --key @/open.key",
        2,
        "mode 0644 lets others read or change it; run `chmod 600",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1/t --fleet-key @/short.key --self-test",
        2,
        "it must hold 64 hex digits",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1/t --fleet-key @/nokey --self-test",
        2,
        "make one with `dyno join --new-key",
    ),
    row(
        "join --new-key @/fleet.key",
        2,
        "the file exists; it is kept",
    ),
    // The fleet's flags `dyno worker` once took: refused, naming `dyno join`.
    row(
        "worker --broker mqtt://127.0.0.1:1/t",
        2,
        "dyno worker --broker: a fleet's load worker is `dyno join` now",
    ),
    row(
        "worker --new-key @/fresh.key",
        2,
        "dyno worker --new-key: a fleet's load worker is `dyno join` now",
    ),
    row(
        "join --key @/fleet.key",
        2,
        "the following required arguments were not provided",
    ),
    // A worker's node is checked when it starts, not when a plan comes.
    row(
        "join --broker mqtt://127.0.0.1:1/t --key @/fleet.key --rpc ftp://x",
        2,
        "--rpc: ",
    ),
    row(
        "join --broker mqtt://127.0.0.1:1/t --key @/fleet.key --allow-node http://10.0.0.5",
        2,
        "--allow-node \"http://10.0.0.5\": give a host",
    ),
    row(
        "load --fleet http://127.0.0.1:1",
        2,
        "--fleet \"http://127.0.0.1:1\": not an MQTT URL; write mqtt://HOST:PORT",
    ),
    row(
        "load --fleet mqtt://user:HUNTER2SECRET@127.0.0.1:1",
        2,
        "--fleet \"mqtt://***@127.0.0.1:1\": credentials in the URL are not taken",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1 --workers 3 --accounts 2",
        2,
        "--accounts 2 is fewer than --workers 3",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1 --workload blob",
        2,
        "fleet workers do not send blob transactions",
    ),
    row(
        "load --fleet mqtt://127.0.0.1:1 --signer node",
        2,
        "--signer node: fleet workers send transactions they signed themselves",
    ),
    row(
        "load --workers 3",
        2,
        "required arguments were not provided",
    ),
    row(
        "join --broker mqtt://127.0.0.1:1 --key @/fleet.key --name 'a b'",
        2,
        "--name \"a b\": use letters, digits",
    ),
    row(
        "--specs @/specs-mix load --workload x --self-test",
        2,
        "mixes.toml:3: unknown kind \"erc2O\" (did you mean \"erc20\"?)",
    ),
    row(
        "load --rpc http://127.0.0.1:1 -o -",
        2,
        "-o -: the load lab writes CSV",
    ),
    row(
        "load --rpc http://127.0.0.1:1 -o out.md",
        2,
        "would be the same file",
    ),
    // The 2026 transaction types: what a node or a signer cannot do is
    // refused before anything starts, naming the fix.
    row(
        "load --node hardhat --workload blob --txs 10",
        2,
        "--workload blob: no node asked for can take it: the workload has blob transactions: Hardhat 3.17",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --workload setcode --signer node",
        2,
        "--signer node: setcode transactions are signed by dyno only",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --workload types --accounts 1",
        2,
        "--accounts 1: a mix with blob transactions needs at least 2 accounts",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --workload blob --txs 400 --accounts 10",
        2,
        "blob transactions over 10 blob-sending accounts is 40 each, more than geth's blob pool holds of one account (16); give --accounts 25 or more",
    ),
    row(
        "load --rpc http://127.0.0.1:1 --metrics-url 127.0.0.1:6060",
        2,
        "--metrics-url 127.0.0.1:6060: give an http:// URL",
    ),
    // Issue 32: sizes checked before anything starts (u64::MAX panicked,
    // 2e9 aborted on a 64 GB allocation with geth left running).
    row(
        "load --rpc http://127.0.0.1:1 --txs 18446744073709551615",
        2,
        "--txs 18446744073709551615: at most 5000000 in one run",
    ),
    row(
        "load --node geth --txs 2000000000",
        2,
        "--txs 2000000000: at most 5000000 in one run",
    ),
    // The record folder checked before the run, not after it (its blocks
    // were lost).
    row(
        "load --node geth --txs 10 --record @/ok.json/rec",
        2,
        "ok.json is a file, not a folder; choose another path",
    ),
];
