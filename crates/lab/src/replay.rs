//! `dyno replay`: dyno's blocks into a real execution client through the
//! Engine API, as a consensus client sends them ([`dyno_replay`]). Each
//! block set is made once; each replay starts the client afresh from the
//! set's genesis. With a second client (`--against`), the two replay
//! every set in ABBA pairs of runs and each id gets a paired comparison.
//!
//! Results are saved after every replay, so a client that dies, hangs or
//! refuses a block costs nothing already timed: the run is marked
//! incomplete with the reason, and the command exits 2.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use dyno_evm::block::fork::Fork;
use dyno_format::destination::Destination;
use dyno_format::{Implementation, Run};
use dyno_replay::ab::{self, Side};
use dyno_replay::blocks::{self, BlockSet};
use dyno_replay::client::ClientSpec;
use dyno_replay::drive::{self, Limits, Replayed};
use dyno_replay::folder::{self, Folder};

use crate::session::Measured;
use crate::{Error, Lab, refuse};

/// What to replay, into what, and how.
#[derive(Debug, Clone)]
pub struct Request {
    /// The clients, each replaying every set in turn: `geth` (the one
    /// `dyno setup geth` installed), `ethereumjs`, another geth build,
    /// `revm`. One with an A/B.
    pub clients: Vec<String>,
    /// Or any Engine-API client's command line, with placeholders.
    pub client_cmd: Option<String>,
    /// The second client of an A/B (`geth` again for an A/A).
    pub against: Option<String>,
    /// Or its command line.
    pub against_cmd: Option<String>,
    /// Block sets (`30M`, `36M`, `60M`, `1000-blocks`, or a chain
    /// folder's path); empty for the default.
    pub sets: Vec<String>,
    /// The fork dyno's sets are made under (default: the newest every
    /// client runs).
    pub fork: Option<Fork>,
    /// Measured rounds per class set.
    pub blocks: Option<usize>,
    /// Warm-up rounds before them (default: as many as are measured).
    pub warmup: Option<usize>,
    /// Pairs of runs in an A/B.
    pub pairs: usize,
    /// An A/B's noise floor (relative).
    pub floor: f64,
    /// The confidence of an A/B's intervals, all together.
    pub confidence: f64,
    /// The longest one Engine-API call may take.
    pub call_timeout: Duration,
    pub quick: bool,
    /// `-o`, checked by the caller; `None` for the default file.
    pub out: Option<Destination>,
    pub quiet: bool,
}

/// Measured rounds per class, by default and with `--quick`.
pub const BLOCKS: usize = 16;
pub const QUICK_BLOCKS: usize = 3;

/// How a replay ended.
#[derive(Debug)]
pub struct Finished {
    /// The run, saved.
    pub measured: Measured,
    /// What stopped it early (exit 2), if anything: a fault, or a client
    /// that called one of the blocks invalid (its result marked wrong).
    pub failure: Option<Error>,
}

/// The clients `req` names, each with the label its results carry: the
/// `--client` list, or the command line's client; with `--against`, the
/// one client (A) and the other (B), told apart in an A/A.
fn clients(lab: &Lab, req: &Request) -> crate::Result<Vec<(String, ClientSpec)>> {
    let comparing = req.against.is_some() || req.against_cmd.is_some();
    let mut out = Vec::new();
    if req.client_cmd.is_some() {
        let spec = crate::client::spec(lab, "cmd", req.client_cmd.as_ref(), "--client")?;
        out.push(("cmd".to_string(), spec));
    } else {
        if req.clients.is_empty() {
            refuse!(
                "--client: name a client, e.g. --client geth (or several: --client geth,ethereumjs)"
            );
        }
        if comparing && req.clients.len() > 1 {
            refuse!(
                "--client {} with --against: an A/B compares one client (A) with another (B); \
                 name one with --client",
                req.clients.join(",")
            );
        }
        crate::choices::distinct("--client", &req.clients)?;
        for name in &req.clients {
            out.push((
                name.clone(),
                crate::client::spec(lab, name, None, "--client")?,
            ));
        }
    }
    if comparing {
        let name = req.against.as_deref().unwrap_or("cmd");
        let spec = crate::client::spec(lab, name, req.against_cmd.as_ref(), "--against")?;
        let mut label = if req.against_cmd.is_some() {
            "cmd".to_string()
        } else {
            name.to_string()
        };
        if label == out[0].0 {
            out[0].0 = format!("{label} (A)");
            label = format!("{label} (B)");
        }
        out.push((label, spec));
    }
    Ok(out)
}

/// Replay what `req` asks; every refusal comes before anything runs.
pub fn run(lab: &Lab, req: &Request) -> crate::Result<Finished> {
    let comparing = req.against.is_some() || req.against_cmd.is_some();
    if comparing && req.pairs < ab::MIN_PAIRS {
        refuse!(
            "--pairs {}: an A/B needs at least {} pairs of runs (one pair is never a verdict)",
            req.pairs,
            ab::MIN_PAIRS
        );
    }
    if !(req.confidence > 0.5 && req.confidence < 1.0) {
        refuse!(
            "--confidence {}: give a level between 0.5 and 1, e.g. 0.95",
            req.confidence
        );
    }
    if !(0.0..1.0).contains(&req.floor) {
        refuse!("--floor {}: give a fraction, e.g. 0.01 for 1%", req.floor);
    }
    let sets = chosen(&req.sets)?;
    let (measured_rounds, warmup) = rounds(req)?;
    let clients = clients(lab, req)?;
    let fork = crate::client::fork(&clients, req.fork)?;
    if let Some((_, Chosen::Folder(dir, _))) = clients
        .iter()
        .find(|(_, s)| *s == ClientSpec::Revm)
        .zip(sets.iter().find(|s| matches!(s, Chosen::Folder(..))))
    {
        refuse!(
            "--set {}: revm replays dyno's own block sets (it starts from their state, not from \
             a genesis file); replay a chain folder into an Engine-API client (geth, --client-cmd)",
            dir.display()
        );
    }
    crate::history::check_location(&lab.paths)?;
    let interrupt = crate::interrupt::flag()?;
    let say = |m: &str| {
        if !req.quiet {
            eprintln!("dyno replay: {m}");
        }
    };
    if fork != Fork::default() {
        say(&format!(
            "dyno's sets are made under {fork}, the newest fork every client runs (the same \
             transactions; --fork to choose)"
        ));
    }

    let (mut run, mut saving, probe) = crate::session::open_run(lab, req.quick, req.out.clone())?;

    let contracts = dyno_evm::block::genesis::Contracts::load(&lab.paths.ctx())
        .map_err(|e| Error::Refused(format!("the replay's blocks: {e}")))?;
    let limits = Limits {
        call: req.call_timeout,
        ..Limits::default()
    };
    // Which client replays, in turn: A and B in ABBA pairs, or each client
    // once.
    let order: Vec<usize> = if comparing {
        ab::order(req.pairs)
            .into_iter()
            .map(|s| usize::from(s == Side::B))
            .collect()
    } else {
        (0..clients.len()).collect()
    };
    let mut failure: Option<Error> = None;
    let mut all_ids = 0;
    'sets: for chosen in sets {
        let set = match chosen {
            Chosen::Own(name) => {
                say(&making(&name, warmup, measured_rounds));
                blocks::make(&contracts, &name, warmup, measured_rounds, fork)
                    .map_err(|e| Error::Refused(e.to_string()))?
            }
            Chosen::Folder(_, set) => *set,
        };
        let name = &set.name;
        all_ids += set.ids().len();
        let mut done: Vec<(usize, Replayed)> = Vec::new();
        for (k, &who) in order.iter().enumerate() {
            if interrupt.load(Ordering::Relaxed) {
                break 'sets;
            }
            let (label, spec) = &clients[who];
            let what = if order.len() > 1 && comparing {
                format!("{name} into {label} (run {} of {})", k + 1, order.len())
            } else {
                format!("{name} into {label}")
            };
            say(&format!("replaying {what}: {} blocks", set.blocks.len()));
            let bar = progress_bar(set.blocks.len(), req.quiet);
            let total = set.blocks.len();
            let r = drive::replay(spec, &set, limits, &interrupt, |n, _, _| {
                if let Some(bar) = &bar {
                    bar.set_position(n as u64);
                } else if n < total && (n * 4 / total) != ((n - 1) * 4 / total) {
                    // Off a terminal: a line at each quarter.
                    say(&format!("{what}: {n}/{total} blocks"));
                }
            });
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
            if !r.unparsed.is_empty() {
                say(&format!(
                    "warning: {} of the client's slow-block log lines did not parse (first: {}: {:?})",
                    r.unparsed.len(),
                    r.unparsed[0].1,
                    r.unparsed[0].0.chars().take(200).collect::<String>()
                ));
            }
            let stopped = r.failure.clone();
            let run_index = done.iter().filter(|(c, _)| *c == who).count() as u32;
            run.clients.push(client_run(label, &set, run_index, &r));
            done.push((who, r));
            update(&mut run, &set, &done, &clients);
            saving.checkpoint(&run);
            if let Some(f) = stopped {
                let out = saving.target();
                failure = Some(Error::Refused(format!(
                    "the replay of {what} stopped: {}\n  every block timed before it is kept in {out}, the run marked incomplete",
                    f.reason
                )));
                break 'sets;
            }
        }
    }
    if comparing {
        let judge = ab::Judge {
            pairs: req.pairs,
            ids: all_ids,
            family: req.confidence,
            floor: req.floor,
        };
        run.comparisons = compare(&run, &clients[0].0, &clients[1].0, judge);
    }
    crate::session::keep_noise(&mut run, probe, req.quiet);
    let interrupted = interrupt.load(Ordering::Relaxed);
    crate::session::close(&mut run, &mut failure, interrupted, "the blocks timed");
    let measured = saving.finish(run, Vec::new());
    Ok(Finished { measured, failure })
}

/// A set `--set` names: one of dyno's own, or a chain folder (read and
/// checked before anything runs).
#[derive(Debug)]
enum Chosen {
    Own(String),
    Folder(PathBuf, Box<BlockSet>),
}

/// The sets `--set` names, in order; the default when it names none.
fn chosen(sets: &[String]) -> crate::Result<Vec<Chosen>> {
    crate::choices::distinct("--set", sets)?;
    if sets.is_empty() {
        return Ok(blocks::DEFAULT_SETS
            .map(|s| Chosen::Own(s.into()))
            .into_iter()
            .collect());
    }
    sets.iter()
        .map(|n| {
            if blocks::SETS.contains(&n.as_str()) {
                return Ok(Chosen::Own(n.clone()));
            }
            let dir = Path::new(n);
            if !dir.is_dir() {
                refuse!(
                    "--set {n:?}: choose from {} (comma-separated), or give a chain folder (a \
                     directory holding {} and {}, written by `dyno load --record` or `dyno \
                     replay --export`)",
                    blocks::SETS.join(", "),
                    folder::GENESIS,
                    folder::BLOCKS
                );
            }
            let name = folder_name(dir);
            let set = Folder::read(dir)
                .and_then(|f| f.parse(dir, &name))
                .map_err(|e| Error::Refused(format!("--set {n}: {e}")))?;
            Ok(Chosen::Folder(dir.to_path_buf(), Box::new(set)))
        })
        .collect()
}

/// A folder's name as a set name: its last component.
fn folder_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "folder".into())
}

/// Measured and warm-up rounds per class.
fn rounds(req: &Request) -> crate::Result<(usize, usize)> {
    let measured = req
        .blocks
        .unwrap_or(if req.quick { QUICK_BLOCKS } else { BLOCKS });
    if measured == 0 {
        refuse!("--blocks 0: measure at least one block of each class");
    }
    Ok((measured, req.warmup.unwrap_or(measured)))
}

fn making(name: &str, warmup: usize, measured: usize) -> String {
    format!(
        "making the {name} blocks{}",
        if name == "1000-blocks" {
            String::new()
        } else {
            format!(" ({warmup} warm-up and {measured} measured rounds of 4 classes)")
        }
    )
}

/// `dyno replay --export DIR`: write each of dyno's sets `req` names as a
/// chain folder `DIR/<set>` (genesis JSON, block RLP, Engine-API payloads,
/// manifest) without replaying anything; the folders written.
pub fn export(lab: &Lab, req: &Request, dir: &Path) -> crate::Result<Vec<PathBuf>> {
    let sets = chosen(&req.sets)?;
    let (measured, warmup) = rounds(req)?;
    let contracts = dyno_evm::block::genesis::Contracts::load(&lab.paths.ctx())
        .map_err(|e| Error::Refused(format!("the replay's blocks: {e}")))?;
    let mut written = Vec::new();
    for chosen in sets {
        let Chosen::Own(name) = chosen else {
            refuse!(
                "--export writes dyno's own block sets (30M, 36M, 60M, 1000-blocks); a chain folder is already one"
            );
        };
        if !req.quiet {
            eprintln!("dyno replay: {}", making(&name, warmup, measured));
        }
        let set = blocks::make(
            &contracts,
            &name,
            warmup,
            measured,
            req.fork.unwrap_or_default(),
        )
        .map_err(|e| Error::Refused(e.to_string()))?;
        let made_by = format!(
            "dyno {} replay --export DIR --set {name} --blocks {measured} --warmup {warmup}",
            lab.build.version
        );
        let out = dir.join(&name);
        Folder::export(&set, &made_by)
            .and_then(|f| f.write(&out, &set))
            .map_err(|e| Error::Refused(format!("--export: {e}")))?;
        written.push(out);
    }
    Ok(written)
}

pub(crate) fn progress_bar(total: usize, quiet: bool) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal as _;
    (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} blocks {elapsed}")
                .expect("valid template"),
        );
        bar
    })
}

/// The record of one client start: its process's use and its metrics.
pub(crate) fn client_run(
    implementation: &str,
    set: &BlockSet,
    run: u32,
    r: &Replayed,
) -> dyno_format::replay::ClientRun {
    let u = r.usage.as_ref();
    let both = u.and_then(|u| Some((u.before?, u.after?)));
    let (metrics, metrics_missing) = match u.map(|u| &u.metrics) {
        Some(Ok(m)) => (m.clone(), None),
        Some(Err(e)) => (Default::default(), Some(e.clone())),
        None => (Default::default(), Some("the client never answered".into())),
    };
    dyno_format::replay::ClientRun {
        implementation: implementation.into(),
        set: set.name.clone(),
        run,
        version: r.version.clone(),
        command: r.command.clone(),
        blocks: r.timed.len() as u64,
        wall_s: u.map_or(0.0, |u| u.wall.as_secs_f64()),
        cpu_s: both.map(|(b, a)| a.cpu_s - b.cpu_s),
        rss_peak_bytes: both.map(|(_, a)| a.rss_peak_bytes),
        io_read_bytes: both.and_then(|(b, a)| Some(a.io?.0.saturating_sub(b.io?.0))),
        io_write_bytes: both.and_then(|(b, a)| Some(a.io?.1.saturating_sub(b.io?.1))),
        metrics,
        metrics_missing,
        fork: set.fork.map(|f| f.to_string()),
    }
}

/// Put each client's results for `set` (from its replays so far) into
/// the run, replacing the ones of an earlier update.
fn update(
    run: &mut Run,
    set: &BlockSet,
    done: &[(usize, Replayed)],
    clients: &[(String, ClientSpec)],
) {
    let ids = set.ids();
    run.results.retain(|r| !ids.contains(&r.id));
    for (who, (label, spec)) in clients.iter().enumerate() {
        let runs: Vec<&Replayed> = done
            .iter()
            .filter(|(c, _)| *c == who)
            .map(|(_, r)| r)
            .collect();
        if runs.is_empty() {
            continue;
        }
        let version = runs
            .iter()
            .map(|r| r.version.as_str())
            .find(|v| !v.is_empty())
            .unwrap_or("unknown");
        let implementation = Implementation {
            name: label.clone(),
            version: version.into(),
            runtime: spec.runtime().into(),
        };
        run.results.extend(dyno_replay::results::results(
            &implementation,
            spec.name(),
            set,
            &runs,
        ));
    }
}

/// Each id's comparison of B against A.
fn compare(run: &Run, a: &str, b: &str, judge: ab::Judge) -> Vec<dyno_format::replay::Comparison> {
    let of = |name: &str, id: &str| {
        run.results
            .iter()
            .find(|r| r.id == id && r.implementation.name == name)
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for r in &run.results {
        if seen.contains(&r.id.as_str()) {
            continue;
        }
        seen.push(&r.id);
        if let (Some(ra), Some(rb)) = (of(a, &r.id), of(b, &r.id))
            && let Some(c) = ab::compare(ra, rb, judge)
        {
            out.push(c);
        }
    }
    out
}
