//! `dyno gas`: every precompile's time against the fork's gas schedule.

use dyno_format::Run;
use dyno_format::destination::Destination;
use dyno_lab::{Lab, Outcome, history, session};
use dyno_report::gas::GasTable;

use crate::cli::GasArgs;
use crate::print_stdout;

pub(crate) fn gas(lab: &Lab, args: &GasArgs) -> anyhow::Result<Outcome> {
    // Check the fork and the anchor first: a typo should not cost a minute
    // of measuring.
    let schedule = dyno_lab::gas::schedule(lab, &args.fork)?;
    if args.factor.is_nan() || args.factor <= 1.0 {
        anyhow::bail!(
            "--factor {} cannot flag anything: give a factor above 1, e.g. 2",
            args.factor
        );
    }
    if args.blocks {
        return blocks(lab, args);
    }
    let state_mgas = match (args.state, args.anchor) {
        (false, _) => None,
        (true, None) => Some(60.0),
        (true, Some(dyno_format::gas::Anchor::Throughput(m))) => Some(m),
        (true, Some(other)) => anyhow::bail!(
            "--anchor {other}: --state prices against a throughput (e.g. --anchor 60mgas)"
        ),
    };
    let (run, outcome) = match &args.from {
        Some(path) => (Run::read(path)?, Outcome::Ok),
        None => {
            let settings = crate::run::settings(args.quick, &args.output)?;
            history::check_location(&lab.paths)?;
            if settings.out == Some(Destination::Stdout) {
                anyhow::bail!(
                    "-o -: `dyno gas` prints its table on stdout; give -o a file for the \
                     run's JSON (or price a saved run with --from)"
                );
            }
            let measured = if args.state {
                dyno_lab::gas::measure_state(lab, &settings)?
            } else {
                dyno_lab::gas::measure(lab, &settings)?
            };
            measured.announce();
            history::save(&lab.paths, &measured.run, measured.file(), settings.quiet);
            let outcome = session::report_problems(&measured.run, &measured.errors, false);
            measured.check_written()?;
            (measured.run, outcome?)
        }
    };
    if let Some(mgas) = state_mgas {
        let priced = dyno_lab::gas::price_state(lab, &run, args.factor, mgas)?;
        print_stdout(&dyno_report::state_gas::render(
            &priced,
            args.output.format.into(),
        ))?;
        return Ok(outcome);
    }
    let priced = dyno_lab::gas::price(lab, &run, &schedule, args.anchor, args.factor, true)?;
    for why in &priced.left_out {
        eprintln!("dyno: left out {why}");
    }
    let table = GasTable {
        fork: &args.fork,
        factor: args.factor,
        second_anchor: args.anchor,
        anchor_ns: priced.anchor_ns,
        noop_ns: priced.noop_ns,
        rows: &priced.rows,
        run_id: &run.run.id,
    };
    print_stdout(&dyno_report::gas::render(&table, args.output.format.into()))?;
    Ok(outcome)
}

/// `dyno gas --blocks`: measure (or read `--from`), price, print.
fn blocks(lab: &Lab, args: &GasArgs) -> anyhow::Result<Outcome> {
    let anchor = match args.anchor {
        None => dyno_price::blocks::ANCHOR_MGAS,
        Some(dyno_format::gas::Anchor::Throughput(m)) => m,
        Some(other) => anyhow::bail!(
            "--anchor {other}: --blocks prices against a throughput (e.g. --anchor 100mgas, the repricing EIPs' anchor)"
        ),
    };
    // Read --with and --compare first: a bad file should not cost a run.
    let peer = match &args.compare {
        Some(path) => Some(dyno_price::peer::read_peer(path)?),
        None => None,
    };
    let with: Vec<Run> = args
        .with
        .iter()
        .map(|p| Run::read(p).map_err(|e| anyhow::anyhow!("--with {}: {e}", p.display())))
        .collect::<anyhow::Result<_>>()?;
    let (run, failure, measured) = match &args.from {
        Some(path) => {
            let mut run = Run::read(path)?;
            if !args.only.is_empty() {
                dyno_lab::reprice::keep_only_results(&mut run, &args.only)?;
            }
            (run, None, None)
        }
        None => {
            if args.output.samples.is_some() {
                anyhow::bail!(
                    "--samples: --blocks takes one sample per block; specs/reprice/ops.toml sets how many blocks (`repeats`)"
                );
            }
            let out = match &args.output.out {
                None => None,
                Some(path) => {
                    match Destination::check(path).map_err(|e| anyhow::anyhow!("-o: {e}"))? {
                        Destination::Stdout => anyhow::bail!(
                            "-o -: `dyno gas --blocks` prints its table on stdout; give -o a file for the \
                         run's JSON (or price a saved run with --from)"
                        ),
                        // The Markdown beside it too, before any block is made.
                        d => {
                            d.beside("md").map_err(|e| anyhow::anyhow!("-o: {e}"))?;
                            Some(d)
                        }
                    }
                }
            };
            let req = dyno_lab::reprice::Request {
                clients: args.client.clone(),
                fork: args.fork.clone(),
                only: args.only.clone(),
                quick: args.quick,
                call_timeout: std::time::Duration::from_secs(args.call_timeout.max(1)),
                out,
                quiet: args.output.quiet,
            };
            let done = dyno_lab::reprice::run(lab, &req)?;
            done.measured.announce();
            history::save(
                &lab.paths,
                &done.measured.run,
                done.measured.file(),
                args.output.quiet,
            );
            (done.measured.run.clone(), done.failure, Some(done.measured))
        }
    };
    match dyno_lab::reprice::price(lab, &run, anchor, &with) {
        Ok(mut priced) => {
            if let (Some(rows), Some(path)) = (&peer, &args.compare) {
                dyno_price::peer::compare(&mut priced, rows, &path.display().to_string())?;
            }
            print_stdout(&dyno_report::reprice::render(
                &priced,
                args.output.format.into(),
            ))?
        }
        // A run stopped before any series was timed has nothing to price;
        // the stop is the error worth showing.
        Err(e) if failure.is_none() => return Err(e.into()),
        Err(_) => {}
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    if let Some(m) = measured {
        m.check_written()?;
    }
    Ok(Outcome::Ok)
}
