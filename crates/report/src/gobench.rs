//! Go's benchmark text format (golang.org/design/14313-benchmark-format),
//! so Go's `benchstat` and other tools that read `go test -bench` output
//! read dyno results:
//!
//! ```text
//! dyno report --format gobench old.json > old.txt
//! dyno report --format gobench new.json > new.txt
//! benchstat old.txt new.txt
//! benchstat -table .fullname -col /impl new.txt   # per id: implementations against the baseline
//! ```
//!
//! (`tools/benchstat` pins a benchstat version.)
//!
//! # Layout
//!
//! Configuration lines first: `goos`, `goarch` (Go's names: `amd64` for
//! `x86_64`, `arm64` for `aarch64`), `pkg: dyno` and `cpu` (the CPU model).
//! `goos` is the Go name of the OS dyno ran on: dyno records the
//! distribution's name on Linux and Rust's OS name elsewhere, so anything
//! that is not a Rust OS name (`macos` becomes `darwin`) is Linux. Then
//! `Unit <unit> assume=exact` lines for the per-operation counts (below),
//! then one benchmark line per raw sample, in the order taken. Results are
//! grouped by id (ids in run order), the id's baseline first, because
//! benchstat orders rows and columns by first appearance and compares
//! columns with the first: `benchstat -table .fullname -col /impl run.txt`
//! then sets every implementation against dyno's baseline, one table per
//! id.
//!
//! ```text
//! BenchmarkHash/keccak256/32B/impl=tiny-keccak-2 <TAB> 2182 <TAB> 520.9078826764436 ns/op <TAB> 0 B/op <TAB> 0 allocs/op
//! ```
//!
//! (fields separated by one tab each).
//!
//! The iteration count is the sample's batch size and `ns/op` is the
//! sample's time divided by it, printed exactly (shortest round-trip
//! decimal), so benchstat sees the real distribution of every sample.
//!
//! When counted, `B/op` and `allocs/op` (heap bytes and allocation calls
//! per operation) and `instructions/op` (callgrind) follow on every line of
//! the result. dyno counts them once per result, not per sample, so every
//! line repeats the same value; the `assume=exact` unit lines tell
//! benchstat they are exact counts, not samples of a distribution, so it
//! reports their change without a significance test (which repeated
//! values would fake).
//!
//! # Names
//!
//! `Benchmark<Id>/impl=<implementation>-<cores>`:
//!
//! * `<Id>` is the result id with its first letter upper-cased, as the
//!   format wants an upper-case letter after `Benchmark` (ids start with a
//!   lower-case group): `hash/keccak256/32B` → `Hash/keccak256/32B`. Its
//!   `/` stay sub-benchmark separators. An id that does not start with a
//!   letter is prefixed with `X`.
//! * `impl=<implementation>` is a sub-benchmark in benchfmt's `key=value`
//!   form, so `benchstat -col /impl` compares implementations (add
//!   `-table .fullname` for a table per id) and `-filter /impl:k256`
//!   selects one. The implementation is its name for
//!   Rust and `name@runtime` for other runtimes (`geth@go`), so results of
//!   one id from several runtimes share a row under `-col /impl`.
//! * `-<cores>` is the GOMAXPROCS suffix: the logical CPUs dyno saw.
//!
//! Characters the format cannot take are replaced by `_`: white space and
//! control characters anywhere (fields are split at white space), `=` in
//! the id (benchfmt would read it as a key), and `/` or `=` in the
//! implementation (a sub-benchmark separator, a key).
//!
//! # Linear-fit results
//!
//! Fast operations are sampled over several batch sizes and dyno reports
//! the fitted slope; a sample's `ns / iters` also carries the per-sample
//! overhead (one clock read and a call, ~50 ns) divided by its batch size.
//! The lines still give the raw `ns / iters`, not `(ns - intercept) /
//! iters`. Batches are sized to last about `min_sample_ns` (1 ms), so the
//! real overhead biases a sample by about 0.005 %, far below anything
//! benchstat can resolve, and by the same amount in both runs of an A/B
//! comparison. The fitted intercept, by contrast, is mostly noise: in the
//! two runs recorded in `dyno-results/` its 95 % interval holds zero for 64
//! of 65 fits, and it reaches ±50 % of the shortest sample. Subtracting it
//! would shift every sample of a result by one shared random amount, which
//! benchstat, testing the samples as independent, would report as a
//! change. benchstat's centre is thus the median of `ns / iters` (dyno's
//! P50), which can differ from the slope dyno's tables show by the fit's
//! noise.
//!
//! # What is left out
//!
//! Results that failed verification (a wrong result is never a timing) and
//! samples of zero iterations. Results that were cut short keep the
//! samples they took. Two results whose names sanitise to the same name
//! would be merged by benchstat: ids keep to the result schema's
//! characters, which are never replaced, and implementation names in use
//! hold no white space, `/` or `=`.

use std::fmt::Write as _;

use dyno_format::{BenchResult, Environment, Run, VerificationStatus};

/// The `pkg` configuration value.
pub const PKG: &str = "dyno";

/// Go's name for an architecture as dyno records it (Rust's names).
pub fn goarch(arch: &str) -> String {
    match arch {
        "x86_64" | "amd64" => "amd64".into(),
        "aarch64" | "arm64" => "arm64".into(),
        "x86" | "i386" | "i486" | "i586" | "i686" => "386".into(),
        "powerpc64" => "ppc64".into(),
        "powerpc64le" => "ppc64le".into(),
        "loongarch64" => "loong64".into(),
        other => config_value(other),
    }
}

/// Go's name for the OS dyno recorded: Linux records the distribution's
/// name, other systems Rust's OS name.
pub fn goos(os: &str) -> String {
    match os {
        "macos" => "darwin".into(),
        "windows" | "freebsd" | "openbsd" | "netbsd" | "dragonfly" | "solaris" | "illumos"
        | "android" | "ios" | "aix" => os.into(),
        _ => "linux".into(),
    }
}

/// A configuration value on one line.
fn config_value(v: &str) -> String {
    v.split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `c`, or `_` if the format cannot take it in a name.
fn name_char(c: char, also: &[char]) -> char {
    if c.is_whitespace() || c.is_control() || also.contains(&c) {
        '_'
    } else {
        c
    }
}

/// The implementation as it appears after `impl=`: the name for Rust,
/// `name@runtime` for other runtimes.
pub fn implementation(r: &BenchResult) -> String {
    let i = &r.implementation;
    let raw = if i.runtime == "rust" || i.runtime.is_empty() {
        i.name.clone()
    } else {
        format!("{}@{}", i.name, i.runtime)
    };
    raw.chars().map(|c| name_char(c, &['/', '='])).collect()
}

/// The benchmark name without the `-<cores>` suffix:
/// `BenchmarkHash/keccak256/32B/impl=tiny-keccak`.
pub fn name(r: &BenchResult) -> String {
    let id: String = r.id.chars().map(|c| name_char(c, &['='])).collect();
    let mut out = String::from("Benchmark");
    let mut chars = id.chars();
    match chars.next() {
        Some(first) if first.is_lowercase() => out.extend(first.to_uppercase()),
        Some(first) if first.is_uppercase() => out.push(first),
        Some(first) => {
            out.push('X');
            out.push(first);
        }
        None => out.push('X'),
    }
    out.push_str(chars.as_str());
    out.push_str("/impl=");
    out.push_str(&implementation(r));
    out
}

/// The value of one unit column, printed exactly.
fn value(v: f64) -> String {
    format!("{v}")
}

/// Whether a result's samples are written.
fn kept(r: &BenchResult) -> bool {
    r.verification.status != VerificationStatus::Failed
}

/// The extra unit columns of a result (after `ns/op`), the same on every
/// sample's line.
fn counts(r: &BenchResult) -> String {
    let mut s = String::new();
    if let Some(a) = r
        .allocations
        .as_ref()
        .filter(|a| a.bytes_per_op.is_finite() && a.allocs_per_op.is_finite())
    {
        let _ = write!(
            s,
            "\t{} B/op\t{} allocs/op",
            value(a.bytes_per_op),
            value(a.allocs_per_op)
        );
    }
    if let Some(i) = r.instructions.as_ref().filter(|i| i.per_op.is_finite()) {
        let _ = write!(s, "\t{} instructions/op", value(i.per_op));
    }
    s
}

/// The kept results, ids in order of first appearance, each id's baseline
/// first and the others in run order.
fn ordered(run: &Run) -> Vec<&BenchResult> {
    let mut ids: Vec<&str> = Vec::new();
    for r in &run.results {
        if !ids.contains(&r.id.as_str()) {
            ids.push(&r.id);
        }
    }
    let mut results: Vec<&BenchResult> = run.results.iter().filter(|r| kept(r)).collect();
    results.sort_by_key(|r| (ids.iter().position(|id| *id == r.id), !r.baseline));
    results
}

fn header(out: &mut String, env: &Environment) {
    let _ = writeln!(out, "goos: {}", goos(&env.os));
    let arch = goarch(&env.arch);
    if !arch.is_empty() {
        let _ = writeln!(out, "goarch: {arch}");
    }
    let _ = writeln!(out, "pkg: {PKG}");
    let cpu = config_value(&env.cpu_model);
    if !cpu.is_empty() {
        let _ = writeln!(out, "cpu: {cpu}");
    }
}

/// Render `run` in Go's benchmark format: configuration lines, then one
/// line per raw sample of every result that passed (or skipped)
/// verification.
pub fn render(run: &Run) -> String {
    let mut out = String::new();
    header(&mut out, &run.environment);
    let results = ordered(run);
    let allocs = results.iter().any(|r| r.allocations.is_some());
    let instructions = results.iter().any(|r| r.instructions.is_some());
    if allocs {
        out.push_str("Unit B/op assume=exact\nUnit allocs/op assume=exact\n");
    }
    if instructions {
        out.push_str("Unit instructions/op assume=exact\n");
    }
    let procs = run.environment.cores.max(1);
    for r in results {
        let name = name(r);
        let counts = counts(r);
        for s in r.samples.iter().filter(|s| s.iters > 0) {
            let _ = writeln!(
                out,
                "{name}-{procs}\t{}\t{} ns/op{counts}",
                s.iters,
                value(s.per_op())
            );
        }
    }
    out
}

/// Go's benchmark text.
#[derive(Debug, Clone, Copy)]
pub struct Gobench;

impl crate::Export for Gobench {
    fn render(&self, run: &Run) -> String {
        render(run)
    }

    fn one_run_only(&self) -> Option<&'static str> {
        Some(
            "--format gobench writes one run: benchstat would pool several runs' samples as one; write one file per run and give them to benchstat side by side",
        )
    }
}
