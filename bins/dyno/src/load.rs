//! `dyno load`: the load campaign's flags in, its result out.

use dyno_lab::campaign::{self, Finished};
use dyno_lab::{Lab, Outcome};

use crate::cli::{LoadArgs, LoadFormat};
use crate::print_stdout;

pub(crate) fn load(lab: &Lab, args: &LoadArgs) -> anyhow::Result<Outcome> {
    let req = args.request();
    let (run, failure, wrong) = match campaign::run(lab, &req)? {
        Finished::SelfTest(line) => {
            print_stdout(&line)?;
            return Ok(Outcome::Ok);
        }
        Finished::Load {
            run,
            failure,
            wrong,
        } => (run, failure, wrong),
    };
    if let Some(run) = run {
        print_stdout(&match args.format {
            LoadFormat::Table => dyno_report::load::table(&run),
            LoadFormat::Json => run.to_json(),
            LoadFormat::Markdown => dyno_report::load::markdown(&run),
        })?;
    }
    if let Some(e) = failure {
        return Err(e.into());
    }
    Ok(if wrong { Outcome::Failed } else { Outcome::Ok })
}
