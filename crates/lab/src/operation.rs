//! What each measured id is, recorded with its result at measure time
//! ([`dyno_format::operation::Facts`]): the operation of the operation
//! table it times, its kind, its units and its nominal gas under every
//! schedule in the specs folder. One place for every implementation (in
//! process or through an adapter), so a saved run is read without a
//! suite's help.

use std::collections::BTreeMap;
use std::path::Path;

use dyno_format::operation::Facts;
use dyno_spec::operations::{Operation, Operations, size_of};
use dyno_spec::reprice::ComputeSchedule;
use dyno_spec::state_gas::{AccessPrice, StateSchedule};
use dyno_workload::Ctx;

use crate::gas::Schedule;

/// The operation table and every schedule that prices its operations.
#[derive(Debug)]
pub struct Prices {
    table: &'static Operations,
    compute: Vec<ComputeSchedule>,
    forks: Vec<Schedule>,
    state: Vec<StateSchedule>,
    accesses: Vec<AccessPrice>,
}

impl Prices {
    /// The table dyno was built with (the suites' ids) and the specs
    /// folder's schedules; a schedule file that cannot be read prices
    /// nothing (the commands that price refuse it with its line).
    pub fn load(specs: &Path) -> Self {
        Self {
            table: dyno_spec::operations::builtin(),
            compute: dyno_spec::reprice::schedules(specs).unwrap_or_default(),
            forks: Schedule::forks(specs)
                .iter()
                .filter_map(|f| Schedule::for_fork(specs, f).ok())
                .collect(),
            state: dyno_spec::state_gas::load(specs).unwrap_or_default(),
            accesses: dyno_spec::state_gas::load_accesses(specs).unwrap_or_default(),
        }
    }

    /// What `id` (`group/op/input`) measures, or `None` for an id that
    /// times no operation of the table.
    pub fn facts(&self, ctx: &Ctx, id: &str) -> Option<Facts> {
        let mut parts = id.splitn(3, '/');
        let (group, op, input) = (parts.next()?, parts.next()?, parts.next()?);
        let facts = |o: &Operation, units: Option<u64>, nominal_gas: BTreeMap<String, u64>| Facts {
            name: o.op.clone(),
            kind: o.kind.clone(),
            units,
            nominal_gas,
        };
        match group {
            "opcode" => {
                let o = self
                    .table
                    .operations
                    .iter()
                    .find(|o| o.loop_op() == op && o.loop_inputs.iter().any(|i| i == input))?;
                // A KECCAK256 loop hashes its input's words.
                let units = (o.kind == "keccak")
                    .then(|| size_of(input).map(|b| b.div_ceil(32) as u64))
                    .flatten();
                let nominal = match (&o.price, self.compute.first()) {
                    (Some(price), Some(first)) => self
                        .compute
                        .iter()
                        .filter_map(|s| Some((s.name.clone(), s.charge(price, units, first)?)))
                        .collect(),
                    _ => BTreeMap::new(),
                };
                Some(facts(o, units, nominal))
            }
            "precompile" | "precompile-bytecode" => {
                let o = self
                    .table
                    .operations
                    .iter()
                    .find(|o| o.precompile.as_deref() == Some(op))?;
                let direct = format!("precompile/{op}/{input}");
                let nominal = dyno_evm::gas::nominal_gas_by_fork(ctx, &self.forks, &direct)
                    .unwrap_or_default();
                Some(facts(o, None, nominal.into_iter().collect()))
            }
            "state" => {
                // The state suite's access kind is a series' `access`, or
                // names its operation first (`sload-warm`, `call-value-cold`).
                let series = self.table.operations.iter().find(|o| {
                    self.table
                        .reprice
                        .ops
                        .iter()
                        .any(|s| s.op == o.op && s.access.as_deref() == Some(op))
                });
                let o = series.or_else(|| {
                    self.table
                        .operations
                        .iter()
                        .filter(|o| {
                            op == o.op
                                || op
                                    .strip_prefix(o.op.as_str())
                                    .is_some_and(|r| r.starts_with('-'))
                        })
                        .max_by_key(|o| o.op.len())
                })?;
                let nominal = self
                    .state
                    .iter()
                    .filter_map(|s| {
                        Some((
                            s.name.clone(),
                            dyno_price::state::nominal(op, s, &self.accesses)?,
                        ))
                    })
                    .collect();
                Some(facts(o, None, nominal))
            }
            _ => None,
        }
    }

    /// Record `id`'s facts in `parameters` (nothing for an id that times
    /// no operation of the table).
    pub fn record(
        &self,
        ctx: &Ctx,
        id: &str,
        parameters: &mut BTreeMap<String, serde_json::Value>,
    ) {
        if let Some(f) = self.facts(ctx, id) {
            parameters.insert(dyno_format::operation::KEY.into(), f.to_value());
        }
    }
}

#[cfg(test)]
mod tests;
