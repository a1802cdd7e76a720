//! The last lines a node printed, kept for the error that names why it stopped.

use super::*;

/// The last lines the node printed, for error messages; and every line
/// holding a marker, kept whole (a client's per-block log).
#[derive(Debug, Clone, Default)]
pub struct Tail {
    recent: Arc<Mutex<VecDeque<String>>>,
    kept: Arc<Mutex<Vec<String>>>,
    marker: Option<&'static str>,
}

impl Tail {
    pub(crate) const LINES: usize = 20;

    /// A tail that also keeps every line containing `marker`.
    pub(crate) fn keeping(marker: Option<&'static str>) -> Self {
        Self {
            marker,
            ..Self::default()
        }
    }

    /// The longest line kept; the rest of a longer one is dropped.
    const LINE_BYTES: usize = 64 * 1024;

    pub(crate) fn follow(&self, stream: impl std::io::Read + Send + 'static) {
        let this = self.clone();
        std::thread::spawn(move || {
            for line in dyno_process::lines::lines(BufReader::new(stream), Self::LINE_BYTES) {
                let line = line.into_text();
                if this.marker.is_some_and(|m| line.contains(m)) {
                    lock(&this.kept).push(line.clone());
                }
                let mut t = lock(&this.recent);
                if t.len() == Self::LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
    }

    /// The lines, oldest first, indented for an error message.
    pub fn render(&self) -> String {
        let t = lock(&self.recent);
        t.iter().map(|l| format!("\n    {l}")).collect()
    }

    /// The kept lines printed since the last call, oldest first.
    pub fn take_kept(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.kept))
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Why a node could not be started.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// Not installed.
    #[error("{name} is not installed in {}: run `dyno setup {name}` first", home.display())]
    NotInstalled {
        /// The node.
        name: String,
        /// Where it should be.
        home: PathBuf,
    },
    /// The process could not be spawned.
    #[error("starting {command}: {source}")]
    Spawn {
        /// The command.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// It exited.
    #[error("{name} exited ({status}) {when}; its last output:{tail}")]
    Exited {
        /// The node.
        name: String,
        /// Exit status.
        status: String,
        /// While doing what.
        when: String,
        /// Its last lines.
        tail: String,
    },
}

impl NodeError {
    /// Whether the node exited because a port it was given was taken
    /// (its last output says so, as Go, Node, Rust and the C library
    /// spell it): starting it again on fresh ports is the remedy.
    pub fn port_taken(&self) -> bool {
        match self {
            NodeError::Exited { tail, .. } => {
                let tail = tail.to_ascii_lowercase();
                ["address already in use", "eaddrinuse", "address in use"]
                    .iter()
                    .any(|m| tail.contains(m))
            }
            _ => false,
        }
    }
}
