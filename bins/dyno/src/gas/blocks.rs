//! `dyno gas --blocks`: one operation's cost inside each client, from the
//! op-isolation blocks (measured, or a saved run), priced.

use dyno_format::Run;
use dyno_format::destination::Destination;
use dyno_lab::{Lab, Outcome};

use crate::cli::GasArgs;
use crate::print_stdout;

/// `dyno gas --blocks`: measure (or read `--from`), price, print.
pub(super) fn blocks(lab: &Lab, args: &GasArgs) -> anyhow::Result<Outcome> {
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
                    "--samples: --blocks takes one sample per block; specs/operations.toml sets how many blocks (`repeats`)"
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
            done.measured.keep(&lab.paths, args.output.quiet);
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
