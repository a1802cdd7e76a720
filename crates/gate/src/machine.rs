//! Whether two runs came from the same kind of machine.

use dyno_format::Environment;
use serde::Serialize;

/// The parts of an environment that decide whether times are comparable:
/// the CPU model, the cores available and the architecture. The kernel,
/// OS release and memory may change on the same machine without changing
/// its speed much; the CPU may not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Machine {
    /// CPU model string.
    pub cpu: String,
    /// Logical cores.
    pub cores: usize,
    /// Architecture.
    pub arch: String,
}

impl Machine {
    /// From a run's environment.
    pub fn of(env: &Environment) -> Self {
        Self {
            cpu: env.cpu_model.trim().to_string(),
            cores: env.cores,
            arch: env.arch.clone(),
        }
    }
}

impl std::fmt::Display for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} cores, {})", self.cpu, self.cores, self.arch)
    }
}

/// `None` when the machines match, else a sentence saying how they differ.
pub fn same_machine(base: &Environment, new: &Environment) -> Option<String> {
    let (a, b) = (Machine::of(base), Machine::of(new));
    (a != b).then(|| format!("the baseline ran on {a}, this run on {b}"))
}
