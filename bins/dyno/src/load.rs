//! `dyno load`: the load campaign's flags in, its result out.

use dyno_lab::campaign::{self, Finished, Request};
use dyno_lab::{Lab, Outcome};

use crate::cli::{LoadArgs, LoadFormat};
use crate::print_stdout;

pub(crate) fn load(lab: &Lab, args: &LoadArgs) -> anyhow::Result<Outcome> {
    let a = args.clone();
    let req = Request {
        node: a.node,
        rpc: a.rpc,
        node_cmd: a.node_cmd,
        node_url: a.node_url,
        txs: a.txs,
        rate: a.rate,
        accounts: a.accounts,
        workload: a.workload,
        signer: a.signer,
        block_time: a.block_time,
        seed: a.seed,
        tip_gwei: a.tip_gwei,
        max_fee_gwei: a.max_fee_gwei,
        connections: a.connections,
        max_in_flight: a.max_in_flight,
        lag_threshold_ms: a.lag_threshold_ms,
        inclusion_timeout: a.inclusion_timeout,
        finality_timeout: a.finality_timeout,
        poll_ms: a.poll_ms,
        metrics_url: a.metrics_url,
        metrics_ms: a.metrics_ms,
        funder_key: a.funder_key,
        threads: a.threads,
        logs: a.logs,
        body_limit: a.body_limit,
        reads: a.reads,
        read_rate: a.read_rate,
        read_methods: a.read_methods,
        self_test: a.self_test,
        self_test_requests: a.self_test_requests,
        out: a.out,
        record: a.record,
        quiet: a.quiet,
        fleet: a.fleet,
        fleet_key: a.fleet_key,
        fleet_login: a.fleet_login,
        fleet_ca: a.fleet_ca,
        workers: a.workers,
        join_timeout: a.join_timeout,
    };
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
