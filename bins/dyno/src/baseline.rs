//! `dyno baseline`: save, list, show, export and import baselines.

use dyno_format::destination::Destination;
use dyno_lab::{Lab, Outcome, baseline, history};

use crate::cli::{BaselineAction, BaselineArgs};
use crate::print_stdout;

pub(crate) fn baseline(lab: &Lab, args: &BaselineArgs) -> anyhow::Result<Outcome> {
    let paths = &lab.paths;
    match &args.action {
        BaselineAction::Save { name, from, reason } => {
            Ok(baseline::save(paths, name, from, reason)?)
        }
        BaselineAction::List => {
            let mut store = history::open_read(paths)?;
            let rows = store.baselines()?;
            if rows.is_empty() {
                eprintln!(
                    "dyno: no baselines in {}; make one with `dyno baseline save NAME --reason ...`",
                    store.location()
                );
                return Ok(Outcome::Ok);
            }
            print_stdout(&dyno_report::history::baselines_text(&rows))?;
            Ok(Outcome::Ok)
        }
        BaselineAction::Show { name, json } => {
            let b = baseline::by_name(paths, name)?;
            match json {
                true => print_stdout(&b.to_json())?,
                false => print_stdout(&dyno_report::history::baseline_text(&b))?,
            }
            Ok(Outcome::Ok)
        }
        BaselineAction::Export { name, out } => {
            let dest = Destination::check(out).map_err(|e| anyhow::anyhow!("-o: {e}"))?;
            let b = baseline::by_name(paths, name)?;
            if dest == Destination::Stdout {
                print_stdout(&b.to_json())?;
            } else {
                dest.write(b.to_json().as_bytes())?;
                let n = b.versions.len();
                eprintln!("dyno: baseline {name} ({n} versions) written to {dest}");
            }
            Ok(Outcome::Ok)
        }
        BaselineAction::Import { file, name } => {
            Ok(baseline::import(paths, file, name.as_deref())?)
        }
    }
}
