//! The worker a runtime's benchmarks share.

use dyno_protocol::Hello;

use crate::adapter::Adapter;
use crate::worker::{Worker, WorkerError};

/// One runtime's worker, started on demand. A JIT runtime gets a fresh
/// worker for every benchmark family (`group/op`), so that code compiled
/// and profiled for one family never shapes another's; any runtime gets a
/// fresh one after its worker failed.
#[derive(Debug)]
pub struct Pool {
    adapter: Adapter,
    worker: Option<Worker>,
    family: Option<String>,
    hello: Option<Hello>,
    starts: usize,
}

/// `group/op` of `group/op/input`.
fn family(id: &str) -> &str {
    id.rsplit_once('/').map_or(id, |(f, _)| f)
}

impl Pool {
    /// A pool for `adapter`; nothing starts yet.
    pub fn new(adapter: Adapter) -> Self {
        Self {
            adapter,
            worker: None,
            family: None,
            hello: None,
            starts: 0,
        }
    }

    /// The adapter.
    pub fn adapter(&self) -> &Adapter {
        &self.adapter
    }

    /// Workers started so far.
    pub fn starts(&self) -> usize {
        self.starts
    }

    fn start(&mut self) -> Result<&mut Worker, WorkerError> {
        self.worker = None; // the old one exits first
        let w = self.adapter.start()?;
        self.starts += 1;
        self.hello = Some(w.hello().clone());
        Ok(self.worker.insert(w))
    }

    /// The worker's `hello`, starting one if none has run yet.
    pub fn hello(&mut self) -> Result<&Hello, WorkerError> {
        if self.hello.is_none() {
            self.start()?;
        }
        Ok(self.hello.as_ref().expect("set by start"))
    }

    /// A live worker for benchmark `id`: the current one, unless it died,
    /// or the runtime is JIT and `id` starts a new family.
    pub fn worker_for(&mut self, id: &str) -> Result<&mut Worker, WorkerError> {
        let jit = self.hello.as_ref().is_some_and(|h| h.jit);
        let fam = family(id).to_string();
        let same_family = self.family.as_deref() == Some(fam.as_str());
        let usable = match self.worker.as_mut() {
            Some(w) => w.alive() && (!jit || same_family || self.family.is_none()),
            None => false,
        };
        self.family = Some(fam);
        if usable {
            Ok(self.worker.as_mut().expect("checked"))
        } else {
            self.start()
        }
    }

    /// The worker the current benchmark was prepared on, if it still runs.
    pub fn current(&mut self) -> Option<&mut Worker> {
        self.worker.as_mut().filter(|w| !w.dead_flag())
    }

    /// Stop the worker (the run is over, or it failed).
    pub fn stop(&mut self) {
        self.worker = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_group_and_op() {
        assert_eq!(family("hash/keccak256/32B"), "hash/keccak256");
        assert_eq!(family("x"), "x");
    }
}
