//! `dyno list`: what there is to run, in every runtime, and the clients.

use dyno_lab::{Lab, Outcome};

use crate::cli::ListArgs;
use crate::print_stdout;

pub(crate) fn list(lab: &Lab, args: &ListArgs) -> anyhow::Result<Outcome> {
    let req = dyno_lab::inventory::Request {
        filter: args.filter.clone(),
        impls: args.impls.clone(),
        installed: args.installed,
    };
    let inv = dyno_lab::inventory::list(lab, &req)?;
    let mut out = String::new();
    if !inv.rows.is_empty() {
        out.push_str(&dyno_report::catalog::text(&inv.rows));
    }
    if !inv.clients.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&dyno_report::catalog::clients_text(&inv.clients));
    }
    print_stdout(&out)?;
    for note in &inv.notes {
        eprintln!("note: {note}");
    }
    let ids: std::collections::BTreeSet<&str> = inv.rows.iter().map(|e| e.id.as_str()).collect();
    let runtimes: std::collections::BTreeSet<&str> =
        inv.rows.iter().map(|e| e.runtime.as_str()).collect();
    let missing = inv.rows.iter().filter(|r| !r.status.ready()).count();
    eprintln!(
        "{} ids, {} implementations in {} runtime(s) ({}), {} not installed; {} clients and nodes; * marks each id's baseline implementation",
        ids.len(),
        inv.rows.len(),
        runtimes.len(),
        runtimes.into_iter().collect::<Vec<_>>().join(", "),
        missing,
        inv.clients.len(),
    );
    Ok(Outcome::Ok)
}
