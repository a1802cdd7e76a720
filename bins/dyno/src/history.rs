//! `dyno history`: the saved runs, one id's trend, or an import.

use dyno_lab::{Lab, Outcome, history};
use dyno_report::history as view;

use crate::cli::HistoryArgs;
use crate::print_stdout;

pub(crate) fn history(lab: &Lab, args: &HistoryArgs) -> anyhow::Result<Outcome> {
    if !args.import.is_empty() {
        history::import(&lab.paths, &args.import)?;
        return Ok(Outcome::Ok);
    }
    let mut store = history::open_read(&lab.paths)?;
    let out = match &args.id {
        Some(id) => {
            let points = store.history(id, args.implementation.as_deref(), args.limit)?;
            if points.is_empty() {
                anyhow::bail!(
                    "no saved run in {} measured {id:?}; check the id with `dyno list`",
                    store.location()
                );
            }
            match args.json {
                true => view::json(&points),
                false => view::points_text(&points),
            }
        }
        None => {
            let rows = store.runs(args.limit)?;
            if args.json {
                view::json(&rows)
            } else {
                let n = rows.len();
                eprintln!("dyno: {n} run(s) shown from {}", store.location());
                view::runs_text(&rows)
            }
        }
    };
    print_stdout(&out)?;
    Ok(Outcome::Ok)
}
