//! Pre-signing the run's transactions, and reusing them on a node whose chain matches.

use super::*;

/// Chain id, nonces, token, store, gas, fees and the blobs' form: what
/// pre-signed transactions depend on.
pub(crate) type SigningKey = (
    u64,
    Vec<u64>,
    Option<Address>,
    Option<Address>,
    GasLimits,
    Fees,
    Option<crate::blobs::Form>,
);

/// Pre-signed transactions, kept to reuse on every node whose chain id,
/// nonces and contract addresses match.
#[derive(Debug, Clone)]
pub struct Presigned {
    /// What the signatures depend on.
    key: SigningKey,
    /// The plan.
    pub plan: Vec<txs::Planned>,
    /// The signed transactions.
    pub signed: Vec<SignedTx>,
    /// Signing throughput when they were signed.
    pub report: SigningReport,
}

/// Sign the run's transactions for `p`, or reuse `cache` if it matches.
pub fn presign(
    p: &Prepared,
    opts: &Options,
    cache: &mut Option<Presigned>,
    say: &dyn Fn(&str),
) -> Presigned {
    let key = (
        p.fees.chain_id,
        p.nonces.clone(),
        p.targets.token,
        p.targets.store,
        p.gas.clone(),
        p.fees,
        p.targets.blobs.as_ref().map(|b| b.form),
    );
    if let Some(c) = cache
        && c.key == key
    {
        say("reusing the pre-signed transactions (same chain id, nonces and contracts)");
        return c.clone();
    }
    let plan = txs::plan(opts.txs, &p.nonces, &opts.mix);
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let (signed, report) = txs::presign(&plan, &p.senders, &p.fees, &p.gas, &p.targets, threads, 1);
    say(&format!(
        "pre-signed {} transactions: {:.0} tx/s serial ({:.1} µs/tx, {:.0}% of bare libsecp256k1 signing at {:.0}/s), {:.0} tx/s on {} threads ({:.0} per core)",
        signed.len(),
        report.serial_tx_per_s,
        report.serial_us_per_tx,
        report.fraction_of_libsecp256k1 * 100.0,
        report.libsecp256k1_sign_per_s,
        report.parallel_tx_per_s,
        report.threads,
        report.per_core_tx_per_s,
    ));
    let out = Presigned {
        key,
        plan,
        signed,
        report,
    };
    *cache = Some(out.clone());
    out
}
