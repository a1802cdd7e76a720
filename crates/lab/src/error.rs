//! The lab's error: a refusal said in full, a step that failed with its
//! cause, or an error of a library the lab drives. The binary adds nothing
//! but the exit code; each line of the chain is printed once.

/// An error of the lab session.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// What was asked cannot be done; the message says why and what to do.
    #[error("{0}")]
    Refused(String),
    /// A step failed: `what` names it, the source says why.
    #[error("{what}")]
    Step {
        what: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An error of a library the lab drives, as that library says it.
    #[error(transparent)]
    Library(Box<dyn std::error::Error + Send + Sync>),
}

/// The lab's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Refuse with a message: `refuse!("--flag {x}: why; what to do")`.
#[macro_export]
macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err($crate::Error::Refused(format!($($arg)*)))
    };
}

macro_rules! library_errors {
    ($($t:ty),* $(,)?) => {
        $(impl From<$t> for Error {
            fn from(e: $t) -> Self {
                Self::Library(Box::new(e))
            }
        })*
    };
}

library_errors!(
    std::io::Error,
    serde_json::Error,
    dyno_spec::SpecError,
    dyno_spec::FilterError,
    dyno_store::StoreError,
    dyno_format::FormatError,
    dyno_format::destination::DestinationError,
    dyno_runner::slowdown::SlowdownError,
    dyno_runner::clock::ClockTooSlow,
    dyno_gate::GateError,
    dyno_spec::gas::GasError,
    dyno_price::Error,
    dyno_load::drive::LoadError,
    dyno_workload::BuildError,
);

impl Error {
    /// The message and every cause, joined by `: ` (as `{:#}` shows an
    /// `anyhow` chain).
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            let line = c.to_string();
            if !text.contains(&line) {
                text.push_str(": ");
                text.push_str(&line);
            }
            cause = c.source();
        }
        text
    }
}

/// `.context(what)` on a result: a failed step named, its cause kept.
pub trait Context<T> {
    /// Name the step that failed.
    fn context(self, what: impl Into<String>) -> Result<T>;
    /// Name it lazily.
    fn with_context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T>;
}

impl<T, E: Into<Box<dyn std::error::Error + Send + Sync>>> Context<T>
    for std::result::Result<T, E>
{
    fn context(self, what: impl Into<String>) -> Result<T> {
        self.map_err(|e| Error::Step {
            what: what.into(),
            source: e.into(),
        })
    }

    fn with_context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|e| Error::Step {
            what: what().into(),
            source: e.into(),
        })
    }
}
