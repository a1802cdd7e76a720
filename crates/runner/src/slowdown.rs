//! A test-only knob that makes chosen benchmarks genuinely slower, so the
//! regression gate can be shown to catch a real slowdown end to end.
//!
//! `DYNO_TEST_SLOWDOWN=ID=FACTOR[,ID=FACTOR...]` (ID exact, or a glob with
//! `*`): every timed batch of a matching benchmark is followed by a busy
//! wait of `FACTOR - 1` times the batch's own duration, so each sample takes
//! `FACTOR` times as long as the work in it: a slowdown in every mode
//! (single, batched, fitted), not a rescaled number. Verification is not
//! touched. A slowed result records `test_slowdown = FACTOR` in its
//! parameters, so it can never pass for a real measurement. Instruction
//! counts (`dyno run --instructions`) see the knob as more work: the counted
//! runs do FACTOR times the iterations.

use std::time::Instant;

use dyno_workload::{Mismatch, Param, Workload};

/// The environment variable.
pub const ENV: &str = "DYNO_TEST_SLOWDOWN";

/// Parsed knob settings: (pattern, factor) pairs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Slowdown(Vec<(String, f64)>);

/// A malformed `DYNO_TEST_SLOWDOWN`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{ENV}={value:?}: {reason}; write ID=FACTOR[,ID=FACTOR...], e.g. \
     {ENV}='hash/keccak256/32B=1.25'"
)]
pub struct SlowdownError {
    /// The variable's value.
    pub value: String,
    /// What is wrong.
    pub reason: String,
}

impl Slowdown {
    /// From the environment; empty when unset.
    pub fn from_env() -> Result<Self, SlowdownError> {
        match std::env::var(ENV) {
            Ok(v) if !v.trim().is_empty() => Self::parse(&v),
            _ => Ok(Self::default()),
        }
    }

    /// Parse `ID=FACTOR[,ID=FACTOR...]`.
    pub fn parse(value: &str) -> Result<Self, SlowdownError> {
        let err = |reason: String| SlowdownError {
            value: value.to_string(),
            reason,
        };
        let mut pairs = Vec::new();
        for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (id, factor) = part
                .rsplit_once('=')
                .ok_or_else(|| err(format!("{part:?} has no '='")))?;
            let factor: f64 = factor
                .trim()
                .parse()
                .map_err(|_| err(format!("{factor:?} is not a number")))?;
            if !(factor.is_finite() && factor >= 1.0) {
                return Err(err(format!("factor {factor} must be at least 1")));
            }
            pairs.push((id.trim().to_string(), factor));
        }
        Ok(Self(pairs))
    }

    /// The factor for benchmark `id`, if the knob names it.
    pub fn factor(&self, id: &str) -> Option<f64> {
        self.0
            .iter()
            .find(|(pattern, _)| glob(pattern, id))
            .map(|&(_, f)| f)
    }
}

/// `*` matches any run of characters; everything else literally.
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| glob(rest, &tail[i..]))
        }
    }
}

/// A workload slowed by `factor`.
pub struct Slowed {
    inner: Box<dyn Workload>,
    factor: f64,
}

impl std::fmt::Debug for Slowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slowed")
            .field("factor", &self.factor)
            .finish_non_exhaustive()
    }
}

impl Slowed {
    /// Wrap `inner`.
    pub fn new(inner: Box<dyn Workload>, factor: f64) -> Self {
        Self { inner, factor }
    }
}

impl Workload for Slowed {
    fn verify(&mut self) -> Result<(), Mismatch> {
        self.inner.verify()
    }

    fn run(&mut self, iters: u64) {
        let start = Instant::now();
        self.inner.run(iters);
        let until = start.elapsed().mul_f64(self.factor);
        while start.elapsed() < until {
            std::hint::spin_loop();
        }
    }

    fn cases(&self) -> usize {
        self.inner.cases()
    }

    fn fitted(&self) -> bool {
        self.inner.fitted()
    }

    fn max_iters(&self) -> Option<u64> {
        self.inner.max_iters()
    }

    fn min_iters(&self) -> Option<u64> {
        self.inner.min_iters()
    }

    fn facts(&self) -> Vec<(&'static str, Param)> {
        let mut facts = self.inner.facts();
        facts.push(("test_slowdown", Param::Float(self.factor)));
        facts
    }

    fn time(&mut self, iters: u64) -> Option<Result<u64, String>> {
        // A self-timing workload (another runtime) reports its own clock;
        // wait the extra time here too, and add it to what it reports.
        let reported = self.inner.time(iters)?;
        Some(reported.map(|ns| {
            let extra = std::time::Duration::from_nanos(ns).mul_f64(self.factor - 1.0);
            let start = Instant::now();
            while start.elapsed() < extra {
                std::hint::spin_loop();
            }
            (ns as f64 * self.factor) as u64
        }))
    }

    fn min_warmup_ns(&self) -> u64 {
        self.inner.min_warmup_ns()
    }

    fn pid(&self) -> Option<u32> {
        self.inner.pid()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_matches() {
        let s = Slowdown::parse("hash/keccak256/32B=1.25, rlp/*=2").unwrap();
        assert_eq!(s.factor("hash/keccak256/32B"), Some(1.25));
        assert_eq!(s.factor("hash/keccak256/64B"), None);
        assert_eq!(s.factor("rlp/encode/x"), Some(2.0));
        assert_eq!(Slowdown::parse("").unwrap(), Slowdown::default());
        for bad in ["x", "x=fast", "x=0.5", "x=NaN"] {
            let e = Slowdown::parse(bad).unwrap_err().to_string();
            assert!(e.contains("ID=FACTOR"), "{e}");
        }
    }

    /// Each iteration sleeps 5 ms: at least 5 ms, whatever the machine.
    struct Nap;
    impl Workload for Nap {
        fn verify(&mut self) -> Result<(), Mismatch> {
            Ok(())
        }
        fn run(&mut self, iters: u64) {
            std::thread::sleep(std::time::Duration::from_millis(5 * iters));
        }
        fn cases(&self) -> usize {
            1
        }
    }

    #[test]
    fn a_slowed_batch_takes_at_least_factor_times_its_work() {
        // A lower bound that holds by construction on any machine: the
        // work takes >= 10 ms, so the slowed batch takes >= 25 ms.
        let mut w = Slowed::new(Box::new(Nap), 2.5);
        let start = Instant::now();
        w.run(2);
        assert!(start.elapsed() >= std::time::Duration::from_millis(25));
        assert!(w.facts().iter().any(|(k, _)| *k == "test_slowdown"));
        assert!(w.verify().is_ok());
    }
}
