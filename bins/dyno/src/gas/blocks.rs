//! `dyno gas --blocks`: one operation's cost inside each client, from the
//! op-isolation blocks (measured, or a saved run), priced.

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
    if args.from.is_none() && args.output.samples.is_some() {
        anyhow::bail!(
            "--samples: --blocks takes one sample per block; specs/operations.toml sets how many blocks (`repeats`)"
        );
    }
    let out = match (&args.from, &args.output.out) {
        (None, Some(path)) => {
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
        _ => None,
    };
    let priced = dyno_lab::reprice::blocks(
        lab,
        &dyno_lab::reprice::Blocks {
            from: args.from.as_deref(),
            measure: dyno_lab::reprice::Request {
                clients: args.client.clone(),
                fork: args.fork.clone(),
                only: args.only.clone(),
                quick: args.quick,
                rounds: args.rounds,
                time_limit: args
                    .time_limit
                    .map(|m| std::time::Duration::from_secs(m * 60)),
                call_timeout: std::time::Duration::from_secs(args.call_timeout.max(1)),
                out,
                quiet: args.output.quiet,
            },
            with: &args.with,
            compare: args.compare.as_deref(),
            anchor_mgas: anchor,
        },
    )?;
    if let Some(p) = &priced.pricing {
        print_stdout(&dyno_report::reprice::render(p, args.output.format.into()))?;
    }
    priced.end?;
    Ok(Outcome::Ok)
}
