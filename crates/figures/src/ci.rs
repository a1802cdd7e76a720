//! docs/ci.md's tables: the CI rehearsals, from the step tables the runs
//! printed (docs/ci/rehearsal-*.md), and the paired A/B check beside a
//! busy core, from the results its trials kept (docs/ci/ab-busy-*/).

use std::path::Path;

use crate::{FiguresError, head, line, read};

/// The rehearsals the table shows, oldest first: each one's step table as
/// the run printed it, and what the table says about the run beside the
/// figures its file gives.
const REHEARSALS: &[(&str, &str)] = &[
    (
        "rehearsal-fresh-2026-11-28-fa4b1ba.md",
        "fresh, the first with CPU: `cargo test` rebuilt dyno (fixed in 067391a)",
    ),
    (
        "rehearsal-fresh-2026-11-28-067391a.md",
        "fresh, with issue 31's cuts: a CLI test counted one busy round wrongly (fixed in c3bcb28)",
    ),
    (
        "rehearsal-warm-2026-11-28-c3bcb28.md",
        "warm (067391a's caches): the same test's next assertion, ecrecover slower in a busy spell (fixed in 5905d5e)",
    ),
    (
        "rehearsal-warm-2026-11-28-5905d5e.md",
        "warm, a `cargo build -j1` beside it the whole run: the same test, a baseline measured in a busy spell (50x knob since e416f02)",
    ),
    (
        "rehearsal-fresh-2026-11-28-2122238.md",
        "fresh, the first to pass",
    ),
    (
        "rehearsal-fresh-2026-11-28-93a83ce.md",
        "fresh, the CLI tests' waste cut (and RocksDB's precompiled header, taken out after)",
    ),
    (
        "rehearsal-warm-2026-11-28-094c746.md",
        "warm (2122238's caches)",
    ),
    (
        "rehearsal-fresh-2026-11-28-f75d5a2.md",
        "fresh, issue 32 (process groups, bounds, masks; two new crates, about 40 new tests)",
    ),
    (
        "rehearsal-fresh-2026-11-28-6256863.md",
        "fresh, issue 33 (dyno-figures: 23 tables regenerated in the docs test)",
    ),
    (
        "rehearsal-fresh-2026-11-29-c62e777.md",
        "fresh, issue 34's compute half (a new step: op isolation into geth and revm, 2m18s)",
    ),
    (
        "rehearsal-fresh-2026-11-29-754d715.md",
        "fresh, issue 34's state set: a CLI test expected two schedule columns, not four (fixed in the next commit; the steps after `cargo test` did not run)",
    ),
    (
        "rehearsal-fresh-2026-11-29-68c6f8a.md",
        "fresh, issue 34 complete (opcode mode in the Go, Node and Python adapters)",
    ),
    (
        "rehearsal-fresh-2026-11-29-0875a52.md",
        "fresh, **another CPU (AMD EPYC, not the Intel Xeon above)**; issue 31's cuts: RocksDB's unity build (D28), SQLite -O0 and dyno-evm -O1 in tests, no nalgebra, the chain checks beside `cargo test`",
    ),
    (
        "rehearsal-warm-2026-11-29-0875a52.md",
        "warm (0875a52's fresh caches, the AMD EPYC): 4m20s over the 15 minutes",
    ),
    (
        "rehearsal-fresh-2026-11-29-7b5a51f.md",
        "fresh, the head submitted (0875a52 plus docs; the AMD EPYC): 24 s over the 35 minutes",
    ),
    (
        "rehearsal-fresh-2026-11-29-cdef4cb.md",
        "fresh, session 28 (the AMD EPYC): the smoke runs that need only Go before the JVM's wait, the paired A/B as a job, source-times (D29)",
    ),
    (
        "rehearsal-warm-2026-11-29-818afc0.md",
        "warm (cdef4cb's fresh caches; cdef4cb plus docs): only `dyno` recompiled, for its commit (D29)",
    ),
    (
        "rehearsal-fresh-2026-11-29-27fb4b2.md",
        "fresh, Maven's JVM with C1 only: the paired A/B as a job beside saturated cores exited 1 in its A/A (back as the last step since 507b1a7)",
    ),
    (
        "rehearsal-fresh-2026-11-29-507b1a7.md",
        "fresh, session 28's submitted code: source-times (D29), the Go-only smoke runs first, Maven's JVM with C1 only, the A/B last",
    ),
    (
        "rehearsal-warm-2026-11-29-507b1a7.md",
        "warm (507b1a7's fresh caches, a new clone of the same commit)",
    ),
    (
        "rehearsal-fresh-2026-11-29-19a6064.md",
        "fresh, session 29 (issue 35): ethrex's release build (12m38s of CPU), EthereumJS, client check on three clients, op isolation into ethrex, the three side by side",
    ),
    (
        "rehearsal-fresh-2026-11-29-e3ac62b.md",
        "fresh, session 30 (issue 36): the fleet test (mosquitto, geth and two workers in network namespaces) in the chain job, mosquitto in the system job",
    ),
    (
        "rehearsal-fresh-2026-11-29-fd9702a.md",
        "fresh, session 30's submitted code (issue 36): the fleet test's sixth case (the broker killed), the shared result file",
    ),
    (
        "rehearsal-fresh-2026-12-01-597c823.md",
        "fresh, session 31's submitted code (issue 50), then the README's main command as written (12m17s, 152 of 152 verified); **the host about 1.7x slower per CPU-second** (the same RocksDB compile 7m50.9s of CPU against fd9702a's 4m31.2s)",
    ),
    (
        "rehearsal-fresh-2026-12-02-9d85d6b.md",
        "fresh, session 32's free-port fix: `client check ethereumjs` failed its forkchoice check (60 s) while this session compiled beside it (not a clean run; the steps after the chain job did not run); the machine split by kind; the main command as written 14m53s, 152 of 152 verified",
    ),
    (
        "rehearsal-fresh-2026-12-02-7687208.md",
        "fresh, session 32's head, a clean run: every step passed but the last, the paired A/B's x2 knob inconclusive on one implementation (one pass at -0.04 as the host swung; CI plants x3 since); the main command as written 13m58s, 152 of 152 verified; CI's own fresh run of this head passed in 27m28s",
    ),
    (
        "rehearsal-fresh-2026-12-02-a95f4d6.md",
        "fresh, session 33's head, a clean run on an Intel Xeon host (the EPYC's before): every step passed, the paired A/B at x3 among them; the main command as written 7m02s, 152 of 152 verified; CI's own fresh run of this head passed in 29m50s",
    ),
    (
        "rehearsal-fresh-2026-12-02-29431cf.md",
        "fresh, issue 52's restructure (the pricing crate, the rules test, the splits, `dyno join`), a clean run on an AMD EPYC host about 1.3x slower per CPU-second than a95f4d6's: every step passed, past the 35 minutes; the main command as written 8m15s, 152 of 152 verified",
    ),
    (
        "rehearsal-fresh-2026-12-02-b878f2f.md",
        "fresh, issue 52's operation table, addresses from the fork file, results with their operation, the thin binary; a clean run: failed after 26m24s on one test (a second Ctrl-C before the first one's checkpoint, fixed after it); the main command as written 8m26s, 152 of 152 verified",
    ),
    (
        "rehearsal-fresh-2026-12-02-cf5d699.md",
        "fresh, issue 52's head with the checkpoint fix, a clean run on the AMD EPYC host: every step passed, past the 35 minutes as 29431cf's on the same host (a95f4d6's Xeon took 30m01s); the main command as written 8m47s, 152 of 152 verified",
    ),
    (
        "rehearsal-fresh-2026-12-03-d2d8f47.md",
        "fresh, issue 53's revm as reth builds it and the noise probe, a clean run on a slow Intel Xeon host: failed after 46m09s on the probe's calibration test, whose quiet-against-loaded ratio does not hold beside the chain job (asserted on a quiet machine only since a783dca); the main command as written 12m57s, 152 of 152 verified",
    ),
];

/// The step a rehearsal's build row starts with, and its `cargo test` row.
const BUILD_STEP: &str = "clippy -D warnings and the build of every target";
const TEST_STEP: &str = "cargo test";
/// The step that compiles RocksDB apart, before the build, since 0875a52
/// (decision D28): part of the build, shown beside it.
const ROCKSDB_STEP: &str = "RocksDB's C++ as RocksDB's unity build";

/// What one rehearsal's printed table gives.
#[derive(Debug, Clone, PartialEq)]
struct Rehearsal {
    commit: String,
    outcome: String,
    total: String,
    build: (String, String),
    test: Option<(String, String)>,
    machine_cpu: Option<String>,
}

/// A Markdown table row's cells, trimmed.
fn cells(row: &str) -> Vec<&str> {
    row.trim()
        .trim_matches('|')
        .split('|')
        .map(str::trim)
        .collect()
}

/// The wall and CPU cells of the step table's row whose step starts with
/// `step`.
fn step_row(text: &str, step: &str) -> Option<(String, String)> {
    text.lines().find_map(|l| {
        let cells = cells(l);
        (cells.len() >= 3 && cells[0].starts_with(step)).then(|| {
            (
                cells[2].to_string(),
                cells
                    .get(3)
                    .map_or_else(|| "-".to_string(), |c| c.to_string()),
            )
        })
    })
}

fn rehearsal(path: &Path) -> Result<Rehearsal, FiguresError> {
    let text = read::text(path)?;
    let bad = |why: &str| FiguresError::Data {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    // "# Fresh-machine rehearsal of COMMIT, DATE: ...", or the older
    // "# Fresh-machine rehearsal, DATE (commit COMMIT)".
    let title = text.lines().next().unwrap_or("");
    let commit = title
        .split(" rehearsal of ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .or_else(|| {
            title
                .split("(commit ")
                .nth(1)
                .and_then(|rest| rest.split(')').next())
        })
        .ok_or_else(|| bad("no title '# ... rehearsal of COMMIT, DATE'"))?
        .to_string();
    let total = text
        .lines()
        .find(|l| l.starts_with("| **total**"))
        .and_then(|l| l.split("**").nth(3))
        .ok_or_else(|| bad("no '| **total** |' row"))?
        .to_string();
    let code_after = |rest: &str| {
        let code: String = rest.chars().take_while(char::is_ascii_digit).collect();
        code.parse::<u32>().ok()
    };
    // The test command's own line: `.ci/run` **failed** (exit N), or
    // `ci-rehearsal: fresh run 1 exited N`; never the README's main
    // command's "exited 0" that a record also holds.
    let exited = text
        .split("**failed** (exit ")
        .nth(1)
        .and_then(code_after)
        .or_else(|| {
            text.lines()
                .filter(|l| !l.contains("main command"))
                .flat_map(|l| l.split("exited ").skip(1))
                .find_map(code_after)
        });
    let outcome = if text.contains("**passed** (exit 0)") || exited == Some(0) {
        "**passed**".to_string()
    } else if let Some(code) = exited {
        format!("failed (exit {code})")
    } else {
        return Err(bad("says neither '**passed** (exit 0)' nor 'exited N'"));
    };
    let mut build = step_row(&text, BUILD_STEP)
        .ok_or_else(|| bad(&format!("no step row '{BUILD_STEP}...'")))?;
    if let Some((wall, cpu)) = step_row(&text, ROCKSDB_STEP) {
        build = (
            format!("{wall} + {}", build.0),
            format!("{cpu} + {}", build.1),
        );
    }
    let machine_cpu = text
        .lines()
        .find_map(|l| l.strip_prefix("CPU (user + system): "))
        .and_then(|rest| rest.split("; ").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .map(String::from);
    Ok(Rehearsal {
        commit,
        outcome,
        total,
        build,
        test: step_row(&text, TEST_STEP),
        machine_cpu,
    })
}

/// docs/ci.md's table of CI rehearsals (issue 31's, with CPU).
pub fn rehearsals_table(root: &Path) -> Result<String, FiguresError> {
    rehearsals(root, REHEARSALS)
}

/// The newest fresh rehearsal in [`REHEARSALS`] that passed (a failed one
/// stopped before its last steps): its file's name, and its path.
fn newest_passed_fresh(root: &Path) -> Result<(&'static str, std::path::PathBuf), FiguresError> {
    let passed = |f: &str| {
        read::text(&root.join("docs/ci").join(f)).is_ok_and(|t| t.contains("**passed** (exit 0)"))
    };
    let (file, _) = REHEARSALS
        .iter()
        .rev()
        .find(|(f, _)| f.starts_with("rehearsal-fresh-") && passed(f))
        .ok_or_else(|| FiguresError::Data {
            path: root.join("docs/ci"),
            why: "no fresh rehearsal that passed is listed".into(),
        })?;
    Ok((file, root.join("docs/ci").join(file)))
}

/// README.md's line on how long its two commands take: from the newest
/// fresh rehearsal in [`REHEARSALS`] that passed, the test command's
/// total and build, and, where the rehearsal ran it (since issue 50), the
/// main command's time, exit code and verified results, as its log's
/// `ci-rehearsal: main command ...` line says them.
pub fn readme_times(root: &Path) -> Result<String, FiguresError> {
    let (file, path) = newest_passed_fresh(root)?;
    let r = rehearsal(&path)?;
    let text = read::text(&path)?;
    let main_clause = match main_command(&text) {
        Some((timing, Some(verified))) => format!(
            "; on the same clone the main command, release build included, {timing} and {verified}"
        ),
        Some((timing, None)) => format!("; the main command {timing}"),
        None => String::new(),
    };
    Ok(format!(
        "On a fresh 2-core machine with empty caches (the latest fresh rehearsal, of {}: \
         [docs/ci/{file}](docs/ci/{file})), `scripts/test.sh` passed in {}, {} of it the \
         build{main_clause}.\n",
        r.commit, r.total, r.build.0
    ))
}

/// What a rehearsal's log said of the README's main command, from its
/// line "ci-rehearsal: main command `CMD` exited 0 after 9m12s; verified
/// 152 of 152 results (...)": how it ended (`exited 0 after 9m12s`) and,
/// where it says, how many results it verified.
fn main_command(text: &str) -> Option<(String, Option<String>)> {
    let rest = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("ci-rehearsal: main command "))?;
    let after = rest.rsplit('`').next().unwrap_or(rest).trim();
    let verified = after
        .split("; ")
        .nth(1)
        .map(|v| v.split(" (").next().unwrap_or(v).to_string());
    let timing = after.split(';').next().unwrap_or(after).trim().to_string();
    Some((timing, verified))
}

/// A `12m02.3s` or `0m58.8s` cell as seconds.
fn cell_seconds(cell: &str) -> Option<f64> {
    minutes_seconds(cell.trim().trim_matches('*'))
}

/// docs/ci.md's "where the CPU goes": every step and every background
/// job's part of the newest fresh rehearsal in [`REHEARSALS`] that passed
/// (a failed one stopped before its last steps), by CPU, with its share of
/// the run's (the waits and the jobs' own rows left out: their parts are
/// listed).
pub fn cpu_table(root: &Path) -> Result<String, FiguresError> {
    let (file, path) = newest_passed_fresh(root)?;
    let text = read::text(&path)?;
    let mut rows: Vec<(f64, String, String)> = Vec::new();
    let mut total = None;
    for l in text.lines().filter(|l| l.starts_with("| ")) {
        let cells = cells(l);
        let (what, wall, cpu) = match cells.as_slice() {
            ["**total**", _, _, cpu] => {
                total = cell_seconds(cpu);
                continue;
            }
            [step, _, wall, cpu] => {
                if step.starts_with("wait for:") || step.ends_with("(background)") {
                    continue;
                }
                (step.to_string(), *wall, *cpu)
            }
            [job, part, _, wall, cpu] => (format!("{job}: {part}"), *wall, *cpu),
            _ => continue,
        };
        if let Some(secs) = cell_seconds(cpu) {
            rows.push((secs, what, wall.to_string()));
        }
    }
    let total = total.ok_or_else(|| FiguresError::Data {
        path: path.clone(),
        why: "no '| **total** |' row with CPU".into(),
    })?;
    if rows.is_empty() {
        return Err(FiguresError::Data {
            path,
            why: "no step rows with CPU".into(),
        });
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = head(&["step or job part", "CPU", "share", "wall"].map(String::from));
    for (secs, what, wall) in rows {
        out.push_str(&line(&[
            what,
            clock(secs),
            format!("{:.1}%", 100.0 * secs / total),
            wall,
        ]));
    }
    out.push_str(&format!(
        "\nGenerated by `cargo run -p dyno-figures -- write` from [{file}](ci/{file}), the newest fresh \
         rehearsal: its steps and its jobs' parts, each with its share of the {} of CPU they burned.\n",
        clock(total)
    ));
    Ok(out)
}

/// Issue 15's rehearsals (2026-11-25): their tables had wall time only.
const REHEARSALS_2026_11_25: &[(&str, &str)] = &[
    ("rehearsal-fresh-2026-11-25.md", "fresh"),
    (
        "rehearsal-warm-2026-11-25.md",
        "warm (the fresh run's caches, a new clone)",
    ),
];

/// docs/ci.md's table of the rehearsals that kept only wall times (issue 15's).
pub fn wall_only_rehearsals_table(root: &Path) -> Result<String, FiguresError> {
    rehearsals(root, REHEARSALS_2026_11_25)
}

fn rehearsals(root: &Path, list: &[(&str, &str)]) -> Result<String, FiguresError> {
    let mut out = head(
        &[
            "run",
            "commit",
            "outcome",
            "total",
            "build (clippy + every target; RocksDB's unity step + it, where run apart): wall, CPU",
            "`cargo test`: wall, CPU",
            "CPU, whole machine",
            "table",
        ]
        .map(String::from),
    );
    for (file, label) in list {
        let r = rehearsal(&root.join("docs/ci").join(file))?;
        out.push_str(&line(&[
            label.to_string(),
            r.commit,
            r.outcome,
            r.total,
            wall_cpu(&r.build),
            r.test.as_ref().map_or_else(|| "-".into(), wall_cpu),
            r.machine_cpu.unwrap_or_else(|| "-".into()),
            format!("[{file}](ci/{file})"),
        ]));
    }
    out.push_str(
        "\nGenerated by `cargo run -p dyno-figures -- write` from each run's step table as it printed it \
         (`docs/ci/rehearsal-*.md`; a failed run's `cargo test` is its time until it failed).\n",
    );
    Ok(out)
}

/// "wall, CPU", or the wall alone where the run printed no CPU.
fn wall_cpu((wall, cpu): &(String, String)) -> String {
    if cpu == "-" {
        wall.clone()
    } else {
        format!("{wall}, {cpu}")
    }
}

/// `time`'s `real 20m1.602s` as seconds.
fn minutes_seconds(s: &str) -> Option<f64> {
    let (m, rest) = s.split_once('m')?;
    Some(m.parse::<f64>().ok()? * 60.0 + rest.strip_suffix('s')?.parse::<f64>().ok()?)
}

fn clock(secs: f64) -> String {
    let s = secs.round() as u64;
    format!("{}m{:02}s", s / 60, s % 60)
}

/// The build table of issue 15 (docs/ci.md, "The build, unit by unit"):
/// each build's wall and CPU as `time` printed them
/// (docs/ci/raw-2026-11-25.md, its first two sections), RocksDB's build
/// script and the next slowest units from its `--timings` TSV.
pub fn build_units_table(root: &Path) -> Result<String, FiguresError> {
    let raw_path = root.join("docs/ci/raw-2026-11-25.md");
    let raw = read::text(&raw_path)?;
    let mut times: Vec<[f64; 3]> = Vec::new();
    for section in raw.split("\n## ").skip(1) {
        let field = |name: &str| {
            section
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| minutes_seconds(v.trim()))
        };
        if let (Some(real), Some(user), Some(sys)) = (field("real"), field("user"), field("sys")) {
            times.push([real, user, sys]);
        }
    }
    let builds = [
        (
            "before: test build alone, deps with full debug info",
            "timings-before.tsv",
        ),
        (
            "after: the same build **with clippy's lints**, deps line tables only, C/C++ without `-g`",
            "timings-after.tsv",
        ),
    ];
    if times.len() < builds.len() {
        return Err(FiguresError::Data {
            path: raw_path,
            why: format!(
                "{} sections with real/user/sys, not {}",
                times.len(),
                builds.len()
            ),
        });
    }
    let mut out = head(
        &[
            "",
            "wall",
            "CPU (user + sys)",
            "RocksDB's C++ (its build script)",
            "next slowest",
        ]
        .map(String::from),
    );
    for ((label, tsv), [real, user, sys]) in builds.iter().zip(times) {
        let path = root.join("docs/ci").join(tsv);
        let text = read::text(&path)?;
        let units: Vec<(f64, &str, &str)> = text
            .lines()
            .skip(1)
            .filter_map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                Some((c.first()?.parse().ok()?, *c.get(1)?, *c.get(3)?))
            })
            .collect();
        let rocksdb = units
            .iter()
            .find(|(_, name, target)| {
                *name == "librocksdb-sys" && target.starts_with("build-script")
            })
            .ok_or_else(|| FiguresError::Data {
                path: path.clone(),
                why: "no librocksdb-sys build-script row".into(),
            })?;
        let next: Vec<String> = units
            .iter()
            .filter(|u| u.1 != "librocksdb-sys")
            .take(4)
            .map(|(secs, name, target)| {
                let what = if target.starts_with("build-script") {
                    " (its build script)"
                } else {
                    ""
                };
                format!("{name}{what} {secs:.0} s")
            })
            .collect();
        out.push_str(&line(&[
            format!("{label} ([{tsv}](ci/{tsv}))"),
            clock(real),
            clock(user + sys),
            format!("{:.0} s", rocksdb.0),
            next.join(", "),
        ]));
    }
    out.push_str(
        "\nGenerated by `cargo run -p dyno-figures -- write` from `docs/ci/raw-2026-11-25.md` (wall and CPU as `time` printed them) and each build's `--timings` TSV (unit seconds).\n",
    );
    Ok(out)
}

/// The C++ compile cost of 8 of RocksDB's sources per compiler and flag
/// set (`scripts/rocksdb-compile-cost.sh`'s output, kept).
pub fn rocksdb_flags_table(root: &Path) -> Result<String, FiguresError> {
    const FILE: &str = "docs/ci/rocksdb-compile-cost-2026-11-25.txt";
    let path = root.join(FILE);
    let text = read::text(&path)?;
    let mut out = head(&["compiler", "flags", "seconds"].map(String::from));
    let mut rows = 0;
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((secs, rest)) = l
            .trim_end()
            .strip_suffix(" s")
            .and_then(|l| l.rsplit_once(' '))
            .map(|(rest, secs)| (secs, rest))
        else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(compiler) = words.next() else {
            continue;
        };
        let flags: Vec<&str> = words.collect();
        out.push_str(&line(&[
            compiler.to_string(),
            format!("`{}`", flags.join(" ")),
            secs.to_string(),
        ]));
        rows += 1;
    }
    if rows == 0 {
        return Err(FiguresError::Data {
            path,
            why: "no 'COMPILER FLAGS... N s' lines".into(),
        });
    }
    out.push_str(&format!(
        "\nGenerated by `cargo run -p dyno-figures -- write` from `{FILE}` (the script's output as it printed it).\n"
    ));
    Ok(out)
}

/// The id the busy-core check slows.
const SLOWED: &str = "hash/keccak256/1KiB";

/// The busy-core trials: the folder under docs/ci and its series.
const BUSY: (&str, &[&str]) = ("ab-busy-2026-11-28", &["knob-x2", "no-knob"]);

/// docs/ci.md's table of the paired A/B check beside a busy core, each
/// trial's results judged by today's rules.
pub fn busy_ab_table(root: &Path) -> Result<String, FiguresError> {
    let (folder, series) = BUSY;
    let mut out = head(
        &[
            "trials",
            "trial",
            "check (its exit as run)",
            "A/A flagged",
            "A/A largest detectable",
            &format!("knob on {SLOWED}"),
        ]
        .map(String::from),
    );
    for name in series {
        let dir = root.join("docs/ci").join(folder).join(name);
        // Each trial a folder (scripts/ab-check-busy.sh writes them).
        let trials = read::trials(&dir, "")?;
        for (k, trial) in trials {
            let exit = read::text(&trial.join("exit"))?;
            let mut aa = read::run(&trial.join("ab-aa.json.gz"))?;
            let mut knob = read::run(&trial.join("ab-knob.json.gz"))?;
            dyno_gate::paired::judge(&mut aa.paired);
            dyno_gate::paired::judge(&mut knob.paired);
            let flagged = aa
                .paired
                .iter()
                .filter(|p| p.verdict == "regressed" || p.verdict == "improved")
                .count();
            let widest = aa
                .paired
                .iter()
                .filter_map(|p| p.min_detectable)
                .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
            let cells: Vec<String> = knob
                .paired
                .iter()
                .filter(|p| p.id == SLOWED)
                .map(|p| {
                    format!(
                        "{} {} {:+.0}% (p {})",
                        p.implementation,
                        p.verdict,
                        100.0 * p.delta,
                        dyno_report::paired::p_value(p.p_holm)
                    )
                })
                .collect();
            let check = match exit.trim() {
                "0" => "passed".to_string(),
                rc => format!("failed (exit {rc})"),
            };
            out.push_str(&line(&[
                name.to_string(),
                k.to_string(),
                check,
                format!("{flagged} of {}", aa.paired.len()),
                widest.map_or_else(|| "-".into(), |w| format!("{:.1}%", 100.0 * w)),
                cells.join("; "),
            ]));
        }
    }
    out.push_str(&format!(
        "\nGenerated by `cargo run -p dyno-figures -- write` from `docs/ci/{folder}/<trials>/trial-K/` \
         (ab-aa.json.gz, ab-knob.json.gz, exit), each result judged by today's `dyno ab` rules.\n"
    ));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_commands_line_gives_its_end_and_its_count() {
        let log = "x\nci-rehearsal: main command `cargo run --release -- run` exited 0 after \
                   12m17s; verified 152 of 152 results (crypto, hash, rlp, trie)\n";
        assert_eq!(
            main_command(log),
            Some((
                "exited 0 after 12m17s".into(),
                Some("verified 152 of 152 results".into())
            ))
        );
        let failed = "ci-rehearsal: main command `cargo run --release -- run` exited 101 after 0m03s; \
                      no result file in dyno-results/";
        assert_eq!(
            main_command(failed).unwrap().0,
            "exited 101 after 0m03s",
            "a failure is said as it was"
        );
        assert_eq!(main_command("| **total** | | **1m** |"), None);
    }

    /// A rehearsal file holding `text`, in a folder that lives as long as
    /// the returned guard.
    fn rehearsal_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.md");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn a_rehearsal_reads_its_outcome_total_and_rows() {
        let (_dir, path) = rehearsal_file(
            "# Warm rehearsal of abc1234, 2026-11-28: its step table as the run printed it\n\n\
             | step | started | wall | CPU |\n|---|--:|--:|--:|\n\
             | clippy -D warnings and the build of every target, once | 0m12s | 4m15s | 5m29.8s |\n\
             | cargo test (with the db engines) | 4m31s | 7m25s | 6m30.8s |\n\
             | **total** | | **11m56s** | **12m11.5s** |\n\n\
             CPU (user + system): 12m11.5s in the steps and jobs above; 23m32.9s on the whole machine\n\
             ci-rehearsal: warm run 2 exited 101 after 11m56s\n",
        );
        let r = rehearsal(&path).unwrap();
        assert_eq!(
            r,
            Rehearsal {
                commit: "abc1234".into(),
                outcome: "failed (exit 101)".into(),
                total: "11m56s".into(),
                build: ("4m15s".into(), "5m29.8s".into()),
                test: Some(("7m25s".into(), "6m30.8s".into())),
                machine_cpu: Some("23m32.9s".into()),
            }
        );
        // A failed run whose README main command then exited 0 is failed.
        let (_dir2, failed) = rehearsal_file(
            "# Fresh-machine rehearsal of abc1234, 2026-12-02: its step table\n\n\
             `.ci/run` **failed** (exit 1) after 56m26s.\n\n\
             ci-rehearsal: main command `cargo run --release -- run` exited 0 after 14m53s\n\n\
             | step | started | wall | CPU |\n|---|--:|--:|--:|\n\
             | clippy -D warnings and the build of every target, once | 8m15s | 21m46s | 27m25.3s |\n\
             | **total** | | **56m25s** | **64m21.2s** |\n",
        );
        assert_eq!(rehearsal(&failed).unwrap().outcome, "failed (exit 1)");
        // A file that says nothing of how the run ended is refused, not
        // shown as passed.
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("exited 101", "ended")).unwrap();
        let err = rehearsal(&path).unwrap_err().to_string();
        assert!(err.contains("neither"), "{err}");
    }

    /// Since RocksDB compiles in a step of its own (D28), the build column
    /// shows it beside the Rust build, so runs before and after compare.
    #[test]
    fn the_rocksdb_step_is_shown_as_part_of_the_build() {
        let (_dir, path) = rehearsal_file(
            "# Fresh-machine rehearsal of abc1234, 2026-11-29: its step table\n\n\
             | step | started | wall | CPU |\n|---|--:|--:|--:|\n\
             | RocksDB's C++ as RocksDB's unity build (four files) | 0m24s | 4m03s | 5m16.2s |\n\
             | clippy -D warnings and the build of every target, once | 4m28s | 11m53s | 15m34.5s |\n\
             | **total** | | **33m53s** | **61m34.0s** |\n\n\
             `.ci/run` **passed** (exit 0) after 33m53s\n",
        );
        let r = rehearsal(&path).unwrap();
        assert_eq!(
            r.build,
            ("4m03s + 11m53s".into(), "5m16.2s + 15m34.5s".into())
        );
        assert_eq!(r.test, None);
    }
}
