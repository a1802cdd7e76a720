//! `dyno client check`.

use dyno_lab::{Lab, Outcome};

use crate::cli::{ClientAction, ClientArgs};
use crate::print_stdout;

pub(crate) fn client(lab: &Lab, args: &ClientArgs) -> anyhow::Result<Outcome> {
    let ClientAction::Check {
        name,
        client_cmd,
        fork,
        ready_timeout,
        call_timeout,
        quiet,
    } = &args.action;
    // Nothing to save: an interrupt stops the client (its group) and ends.
    dyno_lab::interrupt::exit_at_once()?;
    let req = dyno_lab::client::CheckRequest {
        name: name.clone().unwrap_or_else(|| "cmd".into()),
        cmd: client_cmd.clone(),
        fork: *fork,
        ready: std::time::Duration::from_secs((*ready_timeout).max(1)),
        call: std::time::Duration::from_secs((*call_timeout).max(1)),
    };
    let quiet = *quiet;
    // Each check's line on stdout as it is found; the summary after them.
    let report = dyno_lab::client::check(lab, &req, &mut |line| {
        if !quiet {
            let _ = print_stdout(&format!("{line}\n"));
        }
    })?;
    print_stdout(&if quiet {
        report.render()
    } else {
        report.summary()
    })?;
    Ok(if report.failed() {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}
