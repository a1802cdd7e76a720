//! `dyno list`: what the specs define.

use dyno_lab::{Lab, Outcome};

use crate::cli::ListArgs;
use crate::print_stdout;

pub(crate) fn list(lab: &Lab, args: &ListArgs) -> anyhow::Result<Outcome> {
    let rows = dyno_lab::suites::list(&lab.paths, args.filter.as_deref())?;
    print_stdout(&dyno_report::catalog::text(&rows))?;
    let ids: std::collections::BTreeSet<&str> = rows.iter().map(|e| e.id.as_str()).collect();
    eprintln!(
        "{} ids, {} benchmarks; * marks each id's baseline implementation",
        ids.len(),
        rows.len()
    );
    Ok(Outcome::Ok)
}
