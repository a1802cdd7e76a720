//! Instruction counts (`dyno run --instructions`): instructions per operation, counted by
//! valgrind's callgrind, for the in-process Rust benchmarks of a run.
//!
//! A count is not a time: it repeats for the same binary and inputs
//! whatever else the machine is doing, and needs no hardware performance
//! counters (so it works in VMs and containers).
//!
//! For each result the parent starts this same binary under callgrind with
//! the hidden `__count` command. The child builds the workload, verifies
//! it and warms it up, then calls [`dyno_counted_region`]: once for one
//! iteration (calibration), then with N and with 2N iterations. Callgrind
//! collects only inside that function (`--collect-atstart=no
//! --toggle-collect`) and dumps a profile as it leaves (`--dump-after`), so
//! each profile holds exactly one call's count. After the calibration the
//! child waits; the parent reads that count and sends N, chosen from it (a
//! count, not a time, so N itself repeats). Instructions per operation are
//! `(I(2N) - I(N)) / N`: the fixed cost of a call (and of `run`'s own
//! set-up) cancels.

use std::hint::black_box;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use dyno_format::{BenchResult, Instructions, Run, VerificationStatus};
use dyno_workload::{BenchDef, Workload};

use crate::error::Context as _;
use crate::paths::Lab;
use crate::{Outcome, refuse};

/// The counted function's name, matched by callgrind's function patterns.
const REGION: &str = "dyno_counted_region";

/// Its full (demangled) path: `--dump-after` takes a name, not a pattern.
const REGION_PATH: &str = concat!(module_path!(), "::dyno_counted_region");

/// Instructions one counted run of N iterations aims at (the 2N run
/// counts twice as many): some milliseconds natively, a second or two
/// under callgrind.
const TARGET_INSTRUCTIONS: f64 = 10e6;

/// The most iterations of one counted run.
const MAX_ITERS: u64 = 1_000_000;

/// Results slower than this per operation are not counted: the child runs
/// at least four operations (warm-up, calibration, N = 1, 2N = 2), some 50
/// times slower than native under callgrind.
const MAX_NS: f64 = 100e6;

/// The valgrind executable.
const VALGRIND: &str = "valgrind";

/// What the child prints on stdout after the calibration, before the
/// number of input cases; it then reads N from stdin.
const CALIBRATED: &str = "calibrated";

// ---------------------------------------------------------------------------
// The child: `dyno __count`.

/// What the child counts.
#[derive(Debug)]
pub struct Count {
    /// The benchmark id.
    pub id: String,
    /// The built-in implementation.
    pub implementation: String,
    /// Iterations of one counted run (each counted once).
    pub iters: Vec<u64>,
    /// Count one iteration, print `calibrated CASES`, read N from stdin,
    /// then count N and 2N iterations.
    pub calibrate: bool,
}

/// `dyno __count --id ID --impl NAME (--calibrate | --iters N...)`: build,
/// verify, warm up, then run inside the counted region: with
/// `--calibrate`, one iteration, then (after printing `calibrated CASES`
/// and reading N from stdin) N and 2N; else each `--iters`. Meant to run
/// under callgrind; saves nothing.
pub fn count(lab: &Lab, args: &Count) -> crate::Result<Outcome> {
    if args.calibrate != args.iters.is_empty() || args.iters.contains(&0) {
        refuse!("__count: give --calibrate, or --iters N (each at least 1)");
    }
    let wanted = |d: &BenchDef| d.implementation == args.implementation && d.id() == args.id;
    let catalog = crate::suites::first_with(wanted);
    let Some(def) = catalog.iter().find(|d| wanted(d)) else {
        let impls: Vec<&str> = catalog
            .iter()
            .filter(|d| d.id() == args.id)
            .map(|d| d.implementation)
            .collect();
        if impls.is_empty() {
            refuse!(
                "__count: unknown benchmark id {:?}: no built-in Rust suite has it (see `dyno list`)",
                args.id
            );
        }
        refuse!(
            "__count: {:?} has no built-in Rust implementation {:?}; it has: {}",
            args.id,
            args.implementation,
            impls.join(", ")
        );
    };
    let ctx = lab.paths.ctx();
    let mut w = (def.build)(&ctx)
        .with_context(|| format!("building {} on {}", args.id, args.implementation))?;
    if let Err(m) = w.verify() {
        eprintln!(
            "dyno: FAILED {} on {}: wrong result for case {}: expected {}, got {}; not counted",
            args.id, args.implementation, m.case, m.expected, m.actual
        );
        return Ok(Outcome::Failed);
    }
    let cases = w.cases().max(1) as u64;
    // DYNO_TEST_SLOWDOWN (test only) adds work here rather than waiting:
    // each counted run does FACTOR times the iterations, so the count per
    // operation grows as a slower build's would.
    let factor = dyno_runner::slowdown::Slowdown::from_env()?
        .factor(&args.id)
        .unwrap_or(1.0);
    let scaled = |n: u64| (n as f64 * factor).round() as u64;
    // Outside the counted region: first-call costs (lazy tables, CPU
    // feature detection) of `run` itself. Verification ran every input.
    w.run(1);
    let mut done = 1;
    let iters = if args.calibrate {
        dyno_counted_region(w.as_mut(), 1);
        done += 1;
        ask_iters(cases)?
    } else {
        args.iters.clone()
    };
    // Whole cycles of the inputs: start at the first, so every counted run
    // covers each input equally and the count is their exact mean.
    if cases > 1 && iters.iter().all(|n| n % cases == 0) {
        w.run((cases - done % cases) % cases);
    }
    for n in iters {
        dyno_counted_region(w.as_mut(), scaled(n));
    }
    Ok(Outcome::Ok)
}

/// Tell the parent the calibration is done (and how many input cases the
/// workload cycles through); read N back: `[N, 2N]`. Allocates the same
/// whatever N is, so the heap the counted runs start from does not depend
/// on it.
fn ask_iters(cases: u64) -> crate::Result<Vec<u64>> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{CALIBRATED} {cases}")?;
    out.flush()?;
    drop(out);
    let mut line = String::with_capacity(32);
    std::io::stdin()
        .read_line(&mut line)
        .context("__count --calibrate: reading N from stdin")?;
    let Some(n) = line.trim().parse::<u64>().ok().filter(|n| *n >= 1) else {
        refuse!("__count --calibrate: expected N >= 1 on stdin, got {line:?}");
    };
    Ok(vec![n, 2 * n])
}

/// The only code callgrind counts (`--toggle-collect=*dyno_counted_region*`):
/// `iters` iterations of the workload. Never inlined, so the symbol exists.
#[inline(never)]
fn dyno_counted_region(w: &mut dyn Workload, iters: u64) {
    w.run(black_box(iters));
}

// ---------------------------------------------------------------------------
// The parent: `dyno run --instructions`.

/// Fail early, before anything is measured, when valgrind is missing;
/// returns the tool string (`callgrind (valgrind-3.19.0)`).
pub fn check_valgrind() -> crate::Result<String> {
    let out = Command::new(VALGRIND)
        .arg("--version")
        .stdin(Stdio::null())
        .output();
    let missing = |why: String| {
        crate::Error::Refused(format!(
            "--instructions counts instructions with valgrind's callgrind, and {why}; \
             install valgrind (Debian/Ubuntu: `apt-get install valgrind`, Fedora: `dnf install valgrind`) \
             or run without --instructions"
        ))
    };
    match out {
        Ok(o) if o.status.success() => {
            let version = String::from_utf8_lossy(&o.stdout).trim().to_string();
            Ok(format!("callgrind ({version})"))
        }
        Ok(o) => Err(missing(format!(
            "`valgrind --version` failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(missing(
            "valgrind is not installed (not found on PATH)".into(),
        )),
        Err(e) => Err(missing(format!("valgrind could not be started: {e}"))),
    }
}

/// Count instructions per operation for every eligible result of `run`
/// (in-process Rust, verified), in place. A benchmark that fails under
/// valgrind is skipped with a warning; a missing valgrind is an error.
pub fn count_run(lab: &Lab, run: &mut Run, quiet: bool) -> crate::Result<()> {
    let tool = check_valgrind()?;
    let exe = std::env::current_exe().context("finding dyno's own executable")?;
    let child_env = ChildEnv {
        exe,
        specs: absolute(&lab.paths.specs),
        vectors: absolute(&lab.paths.vectors),
    };

    let others = run
        .results
        .iter()
        .filter(|r| r.implementation.runtime != "rust")
        .count();
    if others > 0 {
        eprintln!(
            "dyno: --instructions counts in-process Rust benchmarks only; skipping {others} result(s) from other runtimes"
        );
    }
    let (slow, eligible): (Vec<usize>, Vec<usize>) = run
        .results
        .iter()
        .enumerate()
        .filter(|(_, r)| eligible(r))
        .map(|(k, _)| k)
        .partition(|&k| ns_per_op(&run.results[k]) > MAX_NS);
    if !slow.is_empty() {
        let names: Vec<String> = slow
            .iter()
            .map(|&k| {
                let r = &run.results[k];
                format!("{} {}", r.id, r.implementation.name)
            })
            .collect();
        eprintln!(
            "dyno: --instructions skips {} result(s) slower than {} per op (callgrind runs them some 50 times slower): {}",
            slow.len(),
            dyno_report::units::duration(MAX_NS),
            names.join(", ")
        );
    }
    if eligible.is_empty() {
        eprintln!("dyno: --instructions: no verified in-process Rust result to count");
        return Ok(());
    }

    let total = eligible.len();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let counted: Mutex<Vec<(usize, Result<Instructions, String>)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(total);
    let results = &run.results;
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&index) = eligible.get(k) else {
                        break;
                    };
                    let r = &results[index];
                    if !quiet {
                        eprintln!(
                            "dyno: counting instructions [{}/{total}] {} {}",
                            k + 1,
                            r.id,
                            r.implementation.name
                        );
                    }
                    let outcome = match count_with_retry(&child_env, r) {
                        Ok((n, counts)) => Ok(Instructions {
                            per_op: per_op(n, counts),
                            iters: [n, 2 * n],
                            counts,
                            tool: tool.clone(),
                        }),
                        Err(Failure::Interrupted) => {
                            stop.store(true, Ordering::SeqCst);
                            break;
                        }
                        Err(Failure::Reason(why) | Failure::Profiles(why)) => Err(why),
                    };
                    counted
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push((index, outcome));
                }
            });
        }
    });

    let mut counted = counted
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    counted.sort_by_key(|(k, _)| *k);
    let mut done = 0;
    for (index, outcome) in counted {
        let r = &mut run.results[index];
        match outcome {
            Ok(i) => {
                r.instructions = Some(i);
                done += 1;
            }
            Err(why) => eprintln!(
                "dyno: warning: no instruction count for {} on {}: {}",
                r.id,
                r.implementation.name,
                dyno_report::one_line(&why)
            ),
        }
    }
    if stop.load(Ordering::SeqCst) {
        eprintln!("dyno: instruction counting interrupted; {done} of {total} counted");
    }
    eprintln!("{}", summary(run, done, &tool));
    Ok(())
}

/// The id whose workload ran: a `mem/` scenario borrows another suite's.
fn workload_id(r: &BenchResult) -> &str {
    r.parameters
        .get("workload")
        .and_then(serde_json::Value::as_str)
        .unwrap_or(&r.id)
}

/// In-process Rust, verified, not an adapter's no-op.
fn eligible(r: &BenchResult) -> bool {
    r.implementation.runtime == "rust" && r.verification.status == VerificationStatus::Passed
}

/// The measured time of one operation: the P50, else the fit's slope
/// (10 µs if neither is usable).
fn ns_per_op(r: &BenchResult) -> f64 {
    r.stats
        .as_ref()
        .map(|s| s.p50)
        .or_else(|| r.fit.as_ref().map(|f| f.slope))
        .filter(|ns| ns.is_finite() && *ns > 0.0)
        .unwrap_or(1e4)
}

/// N for the counted runs, from the calibration's count of one iteration
/// (a count, so N repeats too): about [`TARGET_INSTRUCTIONS`], at least 1,
/// at most [`MAX_ITERS`]. With several input cases, N is a whole number of
/// cycles through them (the child then starts at the first input), so the
/// count is their exact mean; when one cycle counts over four times the
/// target, N is 1.
fn choose_iters(one: u64, cases: u64) -> u64 {
    let one = one.max(1) as f64;
    let n = (TARGET_INSTRUCTIONS / one)
        .round()
        .clamp(1.0, MAX_ITERS as f64) as u64;
    if cases <= 1 {
        n
    } else if n >= cases {
        n / cases * cases
    } else if cases as f64 * one <= 4.0 * TARGET_INSTRUCTIONS {
        cases
    } else {
        1
    }
}

/// `(I(2N) - I(N)) / N`.
fn per_op(n: u64, counts: [u64; 2]) -> f64 {
    (counts[1] as f64 - counts[0] as f64) / n as f64
}

/// One line: how many results were counted, with an example.
fn summary(run: &Run, done: usize, tool: &str) -> String {
    let example = run
        .results
        .iter()
        .find_map(|r| r.instructions.as_ref().map(|i| (r, i)))
        .map(|(r, i)| {
            format!(
                ", e.g. {} {} {} instr/op",
                r.id,
                r.implementation.name,
                dyno_report::units::count(i.per_op)
            )
        })
        .unwrap_or_default();
    let short = tool.split(' ').next().unwrap_or(tool);
    format!("dyno: instruction counts for {done} result(s) ({short}){example}")
}

/// What the child needs: the binary and the data folders.
#[derive(Debug)]
struct ChildEnv {
    exe: PathBuf,
    specs: PathBuf,
    vectors: PathBuf,
}

/// Why one count failed.
#[derive(Debug)]
enum Failure {
    /// The child died of SIGINT (Ctrl-C): stop counting.
    Interrupted,
    /// Callgrind's profiles were missing or unreadable.
    Profiles(String),
    Reason(String),
}

/// A folder's absolute path, so the child finds it whatever its working
/// folder.
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

/// [`count_one`], once more if callgrind's profiles could not be read
/// (seen once, under heavy load); an interruption or a failed child is not
/// retried.
fn count_with_retry(env: &ChildEnv, r: &BenchResult) -> Result<(u64, [u64; 2]), Failure> {
    match count_one(env, r) {
        Err(Failure::Profiles(_)) => count_one(env, r),
        other => other,
    }
}

/// Run the child under callgrind: calibrate, choose N, count N and 2N
/// iterations. N and the two counts.
fn count_one(env: &ChildEnv, r: &BenchResult) -> Result<(u64, [u64; 2]), Failure> {
    let reason = Failure::Reason;
    let dir = tempfile::Builder::new()
        .prefix("dyno-callgrind-")
        .tempdir()
        .map_err(|e| reason(format!("a temporary folder: {e}")))?;
    let stderr_path = dir.path().join("stderr.txt");
    let stderr = std::fs::File::create(&stderr_path)
        .map_err(|e| reason(format!("creating {}: {e}", stderr_path.display())))?;
    let pattern = format!("*{REGION}*");
    let mut cmd = Command::new(VALGRIND);
    cmd.arg("-q")
        .arg("--tool=callgrind")
        .arg(format!(
            "--callgrind-out-file={}",
            dir.path().join("cg.%p").display()
        ))
        .arg("--collect-atstart=no")
        .arg(format!("--toggle-collect={pattern}"))
        .arg(format!("--dump-after={REGION_PATH}"))
        .arg(&env.exe)
        .args([
            "__count",
            "--id",
            workload_id(r),
            "--impl",
            &r.implementation.name,
        ])
        .arg("--calibrate")
        .env("DYNO_NO_STORE", "true")
        .env("DYNO_SPECS", &env.specs)
        .env("DYNO_VECTORS", &env.vectors)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr);
    // A group of its own, killed with its folder on a second interrupt.
    dyno_process::group::hold_folder(dir.path());
    let child = dyno_process::group::spawn(&mut cmd);
    let release = || dyno_process::group::release_folder(dir.path());
    let mut child = child.map_err(|e| {
        release();
        reason(format!("starting valgrind: {e}"))
    })?;

    // The calibration: the child prints `calibrated CASES` once its first
    // profile is written, then waits for N. Anything else (it failed
    // first) ends its stdin, and its exit status says why.
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        let _ = std::io::BufReader::new(out).read_line(&mut line);
    }
    let chosen = calibrated_cases(&line).map(|cases| {
        let parts = read_parts(dir.path(), true)?;
        let one = region_counts(&parts)
            .first()
            .copied()
            .ok_or_else(|| format!("no calibration profile among {} file(s)", parts.len()))?;
        Ok::<_, String>(choose_iters(one, cases))
    });
    if let (Some(Ok(n)), Some(stdin)) = (&chosen, child.stdin.as_mut()) {
        let _ = writeln!(stdin, "{n}");
    }
    drop(child.stdin.take());
    let status = child.wait();
    dyno_process::group::forget(&child);
    release();
    let status = status.map_err(|e| reason(format!("waiting for valgrind: {e}")))?;
    if let Some(Err(e)) = chosen {
        return Err(Failure::Profiles(format!("calibrating: {e}")));
    }
    if !status.success() {
        use std::os::unix::process::ExitStatusExt as _;
        if status.signal() == Some(2) {
            return Err(Failure::Interrupted);
        }
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        return Err(reason(format!(
            "valgrind --tool=callgrind {} __count exited with {status}: {}",
            env.exe.display(),
            last_lines(&stderr)
        )));
    }
    let Some(Ok(n)) = chosen else {
        return Err(reason(format!(
            "the child never calibrated (it printed {line:?})"
        )));
    };
    let parts = read_parts(dir.path(), false).map_err(Failure::Profiles)?;
    match region_counts(&parts)[..] {
        [_, a, b] if b > a => Ok((n, [a, b])),
        [_, a, b] => Err(reason(format!(
            "the 2N run counted no more instructions than the N run ({b} <= {a})"
        ))),
        ref other => Err(Failure::Profiles(format!(
            "expected 3 profiles dumped after {REGION} (calibration, N, 2N), found {} among {} file(s)",
            other.len(),
            parts.len()
        ))),
    }
}

/// The number of input cases in the child's `calibrated CASES` line.
fn calibrated_cases(line: &str) -> Option<u64> {
    line.trim()
        .strip_prefix(CALIBRATED)
        .and_then(|rest| rest.trim().parse().ok())
}

/// The last few non-empty lines of a child's stderr, for a warning.
fn last_lines(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if lines.is_empty() {
        return "(no output)".into();
    }
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

/// One callgrind profile: its part number, what triggered the dump, and
/// the total `Ir`.
#[derive(Debug, Clone, PartialEq)]
struct Part {
    part: u64,
    trigger: String,
    ir: u64,
}

/// Every profile callgrind wrote into `dir`, sorted by part number. While
/// the child runs (`running`), a profile that does not parse yet is left
/// out: callgrind writes the final one's header at the start.
fn read_parts(dir: &Path, running: bool) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_name().to_string_lossy().starts_with("cg.") {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading {}: {e}", path.display()))?;
        match parse_profile(&text) {
            Ok(part) => parts.push(part),
            Err(_) if running => {}
            Err(e) => {
                return Err(format!("{} ({} bytes): {e}", path.display(), text.len()));
            }
        }
    }
    parts.sort_by_key(|p| p.part);
    Ok(parts)
}

/// The header fields and total `Ir` of a callgrind profile: the `totals:`
/// line (else `summary:`), whose first figure is `Ir`.
fn parse_profile(text: &str) -> Result<Part, String> {
    let mut part = 0;
    let mut trigger = String::new();
    let mut totals = None;
    let mut summary = None;
    let mut events_first_ir = true;
    for line in text.lines() {
        let first = |rest: &str| rest.split_whitespace().next().and_then(|x| x.parse().ok());
        if let Some(rest) = line.strip_prefix("part:") {
            part = rest.trim().parse().unwrap_or(0);
        } else if let Some(rest) = line.strip_prefix("desc: Trigger:") {
            trigger = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("events:") {
            events_first_ir = rest.split_whitespace().next() == Some("Ir");
        } else if let Some(rest) = line.strip_prefix("totals:") {
            totals = first(rest);
        } else if let Some(rest) = line.strip_prefix("summary:") {
            summary = first(rest);
        }
    }
    if !events_first_ir {
        return Err("the profile's first event is not Ir".into());
    }
    let ir = totals
        .or(summary)
        .ok_or("no totals: or summary: line in the callgrind profile")?;
    Ok(Part { part, trigger, ir })
}

/// The totals of the profiles dumped on leaving the counted region, in
/// order (`parts` is sorted by part number).
fn region_counts(parts: &[Part]) -> Vec<u64> {
    parts
        .iter()
        .filter(|p| p.trigger.contains(REGION))
        .map(|p| p.ir)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n_aims_at_the_target_count_in_whole_cycles() {
        assert_eq!(choose_iters(1000, 1), 10_000);
        assert_eq!(choose_iters(1000, 64), 9_984, "a multiple of 64");
        assert_eq!(choose_iters(1_000_000_000, 1), 1, "at least one");
        assert_eq!(
            choose_iters(2_000_000, 16),
            16,
            "one cycle, up to 4x the target"
        );
        assert_eq!(choose_iters(2_000_000, 32), 1, "a cycle does not fit: 1");
        assert_eq!(choose_iters(0, 1), MAX_ITERS);
    }

    #[test]
    fn reads_the_calibration_line() {
        assert_eq!(calibrated_cases("calibrated 8\n"), Some(8));
        assert_eq!(calibrated_cases(""), None);
        assert_eq!(calibrated_cases("calibrated x\n"), None);
    }

    #[test]
    fn the_region_path_is_the_functions_demangled_name() {
        assert_eq!(REGION_PATH, "dyno_lab::callgrind::dyno_counted_region");
        assert!(REGION_PATH.ends_with(REGION));
    }

    #[test]
    fn per_op_is_the_difference_over_n() {
        assert_eq!(per_op(1000, [1_500_000, 2_900_000]), 1400.0);
    }

    #[test]
    fn parses_a_callgrind_profile() {
        let text = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 7\n\
                    cmd: dyno __count\npart: 2\n\ndesc: Trigger: --dump-after=dyno::instructions::dyno_counted_region\n\n\
                    positions: line\nevents: Ir\nsummary: 123456\n\nfn=(1) x\n5 10\n\ntotals: 123456\n";
        let p = parse_profile(text).unwrap();
        assert_eq!(p.part, 2);
        assert_eq!(p.ir, 123_456);
        assert!(p.trigger.contains(REGION));
        assert!(parse_profile("part: 1\nevents: Ir\n").is_err());
    }

    #[test]
    fn picks_the_region_dumps_in_order() {
        let part = |part, trigger: &str, ir| Part {
            part,
            trigger: trigger.into(),
            ir,
        };
        let parts = [
            part(1, "--dump-after=dyno::instructions::dyno_counted_region", 7),
            part(
                2,
                "--dump-after=dyno::instructions::dyno_counted_region",
                100,
            ),
            part(
                3,
                "--dump-after=dyno::instructions::dyno_counted_region",
                190,
            ),
            part(4, "Program termination", 0),
        ];
        assert_eq!(region_counts(&parts), [7, 100, 190]);
        assert_eq!(region_counts(&parts[3..]), Vec::<u64>::new());
    }
}
