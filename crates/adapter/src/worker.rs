//! A running worker: one request, one reply, within a time limit.

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dyno_protocol::{Hello, Reply, Request, VERSION};

/// How long a worker may take to start and answer `hello` (a JVM loading
/// its classes on a busy machine).
pub const HELLO_LIMIT: Duration = Duration::from_secs(120);

/// Lines of stderr kept for error messages.
const TAIL: usize = 12;
/// The longest stderr line kept; the rest of a longer one is dropped.
const TAIL_LINE_BYTES: usize = 4096;

/// A line from the worker's stdout: a protocol line, or one too long.
#[derive(Debug)]
enum Out {
    Line(String),
    TooLong,
}

/// Why a worker could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// `setup` has not installed it.
    #[error("{runtime}: not installed ({} missing): run `dyno setup`", path.display())]
    NotInstalled {
        /// The runtime.
        runtime: String,
        /// The start script looked for.
        path: PathBuf,
    },
    /// Its start script cannot be executed.
    #[error("{runtime}: {} is not executable: its `setup` must `chmod +x` it (then `dyno setup` again)", path.display())]
    NotExecutable {
        /// The runtime.
        runtime: String,
        /// The start script.
        path: PathBuf,
    },
    /// The process could not be started.
    #[error("{runtime}: cannot start the worker: {source}")]
    Spawn {
        /// The runtime.
        runtime: String,
        /// Why.
        source: std::io::Error,
    },
    /// The process exited (or closed its stdout) while a reply was due.
    #[error("{runtime}: the worker died ({status}){tail}")]
    Died {
        /// The runtime.
        runtime: String,
        /// How it ended.
        status: String,
        /// Its last stderr lines, preformatted.
        tail: String,
    },
    /// No reply within the limit; the worker has been killed.
    #[error("{runtime}: no reply within {}s; the worker was stopped{tail}", after.as_secs())]
    Timeout {
        /// The runtime.
        runtime: String,
        /// The limit.
        after: Duration,
        /// Its last stderr lines, preformatted.
        tail: String,
    },
    /// It sent a line longer than the protocol allows; it was stopped.
    #[error("{runtime}: it sent a line of more than {} MiB on stdout (or never ended one): the protocol's lines are at most {} MiB; the worker was stopped", dyno_protocol::MAX_LINE_BYTES >> 20, dyno_protocol::MAX_LINE_BYTES >> 20)]
    LineTooLong {
        /// The runtime.
        runtime: String,
    },
    /// It sent something that is not a protocol reply, or the wrong one.
    #[error("{runtime}: protocol error: {message}")]
    Protocol {
        /// The runtime.
        runtime: String,
        /// What was wrong.
        message: String,
    },
}

/// The variable that caps every wait for a reply, in seconds: the tests
/// of a worker that never answers set it, so as not to wait minutes.
pub const TEST_REPLY_LIMIT: &str = "DYNO_TEST_REPLY_LIMIT_SECS";

/// `limit`, or less if [`TEST_REPLY_LIMIT`] says so.
fn capped(limit: Duration) -> Duration {
    std::env::var(TEST_REPLY_LIMIT)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(limit, |s| limit.min(Duration::from_secs(s)))
}

/// A worker process speaking the adapter protocol on its stdin and stdout.
#[derive(Debug)]
pub struct Worker {
    runtime: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Out>,
    tail: Arc<Mutex<VecDeque<String>>>,
    hello: Hello,
    dead: bool,
}

impl Worker {
    /// Start `cmd`, in a process group of its own (stopped as a group:
    /// a `run` wrapper's children too), and exchange `hello`.
    pub fn spawn(runtime: &str, mut cmd: Command) -> Result<Self, WorkerError> {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child =
            dyno_process::group::spawn(&mut cmd).map_err(|source| WorkerError::Spawn {
                runtime: runtime.into(),
                source,
            })?;
        let stdout = child.stdout.take().expect("piped");
        let stderr = child.stderr.take().expect("piped");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in
                dyno_process::lines::lines(BufReader::new(stdout), dyno_protocol::MAX_LINE_BYTES)
            {
                let (out, go_on) = match line {
                    dyno_process::lines::Line::Whole(l) => (Out::Line(l), true),
                    dyno_process::lines::Line::Cut(_) => (Out::TooLong, false),
                };
                if tx.send(out).is_err() || !go_on {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(VecDeque::with_capacity(TAIL)));
        let keep = tail.clone();
        std::thread::spawn(move || {
            for line in dyno_process::lines::lines(BufReader::new(stderr), TAIL_LINE_BYTES) {
                let line = line.into_text();
                let mut t = keep.lock().unwrap_or_else(|e| e.into_inner());
                if t.len() == TAIL {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
        let placeholder = Hello {
            protocol: VERSION,
            runtime: dyno_protocol::Named {
                name: runtime.into(),
                version: String::new(),
                flags: Vec::new(),
            },
            adapter: dyno_protocol::Named {
                name: String::new(),
                version: String::new(),
                flags: Vec::new(),
            },
            libraries: Default::default(),
            clock: dyno_protocol::ClockInfo {
                source: String::new(),
                resolution_ns: None,
            },
            jit: false,
            benchmarks: Vec::new(),
            patterns: Vec::new(),
        };
        let mut w = Self {
            runtime: runtime.into(),
            stdin: child.stdin.take(),
            child,
            lines,
            tail,
            hello: placeholder,
            dead: false,
        };
        match w.request(&Request::Hello { protocol: VERSION }, HELLO_LIMIT)? {
            Reply::Hello(h) if h.protocol == VERSION => {
                h.check().map_err(|e| w.protocol(e))?;
                w.hello = h;
            }
            Reply::Hello(h) => {
                return Err(w.protocol(format!(
                    "it speaks protocol version {}, dyno speaks {VERSION}: build it with a protocol library of version {VERSION}.x (docs/adapter-protocol.md)",
                    h.protocol
                )));
            }
            Reply::Error { message, .. } => {
                return Err(w.protocol(format!("it refused hello: {message}")));
            }
            other => return Err(w.protocol(format!("expected hello, got {other:?}"))),
        }
        Ok(w)
    }

    /// What the worker said of itself.
    pub fn hello(&self) -> &Hello {
        &self.hello
    }

    /// The runtime's name.
    pub fn runtime(&self) -> &str {
        &self.runtime
    }

    /// The worker's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// True while the process runs and has not failed a request.
    pub fn alive(&mut self) -> bool {
        !self.dead && matches!(self.child.try_wait(), Ok(None))
    }

    /// True once a request failed (the process may still be exiting).
    pub(crate) fn dead_flag(&self) -> bool {
        self.dead
    }

    fn protocol(&self, message: String) -> WorkerError {
        WorkerError::Protocol {
            runtime: self.runtime.clone(),
            message,
        }
    }

    fn tail(&self) -> String {
        let t = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        if t.is_empty() {
            String::new()
        } else {
            let lines: Vec<&str> = t.iter().map(String::as_str).collect();
            format!("; its stderr ended with:\n    {}", lines.join("\n    "))
        }
    }

    /// A line past the protocol's bound: the worker is stopped.
    fn too_long(&mut self) -> WorkerError {
        self.dead = true;
        dyno_process::group::kill(&mut self.child);
        WorkerError::LineTooLong {
            runtime: self.runtime.clone(),
        }
    }

    fn died(&mut self) -> WorkerError {
        self.dead = true;
        // give the process a moment to be reaped, and stderr to drain
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Ok(None) => {
                    dyno_process::group::kill(&mut self.child);
                    break "closed its output; stopped".to_string();
                }
                Err(e) => break e.to_string(),
            }
        };
        std::thread::sleep(Duration::from_millis(20));
        WorkerError::Died {
            runtime: self.runtime.clone(),
            status,
            tail: self.tail(),
        }
    }

    /// Send `req` and wait at most `limit` for the reply. After any error
    /// the worker is unusable ([`Worker::alive`] is false).
    pub fn request(&mut self, req: &Request, limit: Duration) -> Result<Reply, WorkerError> {
        self.send_line(&dyno_protocol::encode(req), limit)
    }

    /// Send one raw line (which need not be a request: a conformance check
    /// sends a malformed one) and wait at most `limit` for the reply.
    pub fn send_line(&mut self, line: &str, limit: Duration) -> Result<Reply, WorkerError> {
        let limit = capped(limit);
        if self.dead {
            return Err(self.died());
        }
        // Nothing may come between one reply and the next request: a line
        // here is output the worker printed outside the protocol.
        if let Ok(stray) = self.lines.try_recv() {
            self.dead = true;
            let Out::Line(stray) = stray else {
                return Err(self.too_long());
            };
            let shown: String = stray.chars().take(200).collect();
            return Err(self.protocol(format!(
                "it printed on stdout outside a reply: {shown:?}; stdout carries protocol lines only (write diagnostics to stderr)"
            )));
        }
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush())
                .is_ok(),
            None => false,
        };
        if !sent {
            return Err(self.died());
        }
        match self.lines.recv_timeout(limit) {
            Ok(Out::TooLong) => Err(self.too_long()),
            Ok(Out::Line(reply)) => dyno_protocol::decode::<Reply>(&reply).map_err(|e| {
                self.dead = true;
                let shown: String = reply.chars().take(200).collect();
                self.protocol(format!("not a reply ({e}): {shown}"))
            }),
            Err(RecvTimeoutError::Disconnected) => Err(self.died()),
            Err(RecvTimeoutError::Timeout) => {
                self.dead = true;
                dyno_process::group::kill(&mut self.child);
                Err(WorkerError::Timeout {
                    runtime: self.runtime.clone(),
                    after: limit,
                    tail: self.tail(),
                })
            }
        }
    }
}

impl Worker {
    /// Close stdin, as the orchestrator does at the end, and wait at most
    /// `limit` for the worker to exit: how it exited (`None`: it had not,
    /// and was killed), and any lines it printed on stdout after its last
    /// reply.
    pub fn close(mut self, limit: Duration) -> (Option<std::process::ExitStatus>, Vec<String>) {
        drop(self.stdin.take());
        let deadline = Instant::now() + limit;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => break None,
            }
        };
        // Whatever the worker left running in its group goes with it.
        dyno_process::group::kill(&mut self.child);
        // the reader thread ends at the pipe's end
        let mut stray = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(200)) {
            stray.push(match line {
                Out::Line(l) => l,
                Out::TooLong => format!(
                    "(a line of more than {} MiB)",
                    dyno_protocol::MAX_LINE_BYTES >> 20
                ),
            });
        }
        (status, stray)
    }
}

impl Drop for Worker {
    /// Close stdin (the worker exits), wait up to 2 s, then kill its
    /// whole group (what it left running too).
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        dyno_process::group::kill(&mut self.child);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A worker written in shell: answers hello, then replays `script`
    /// (one reply line per request read).
    pub(crate) fn sh_worker(replies: &[&str]) -> Command {
        let hello = r#"{"type":"hello","protocol":1,"runtime":{"name":"sh","version":"5"},"adapter":{"name":"t","version":"0"},"clock":{"source":"date"},"jit":false,"benchmarks":[{"id":"hash/keccak256/32B","implementation":"toy"}]}"#;
        let mut script = format!("read -r l; echo '{hello}'\n");
        for r in replies {
            script.push_str(&format!("read -r l || exit 0; {r}\n"));
        }
        script.push_str("while read -r l; do :; done\n");
        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(script);
        cmd
    }

    /// A one-iteration, one-sample `run`.
    const RUN_ONE: Request = Request::Run {
        iterations: 1,
        samples: 1,
    };

    /// The old reader grew one line until the allocation failed (4 GiB,
    /// then abort); now the line ends the worker at 64 MiB.
    #[test]
    fn a_worker_that_never_ends_a_line_is_stopped_at_the_bound() {
        let mut w = Worker::spawn(
            "sh",
            sh_worker(&["head -c 70000000 /dev/zero | tr '\\0' x; sleep 30"]),
        )
        .unwrap();
        let e = w.request(&RUN_ONE, Duration::from_secs(60)).unwrap_err();
        assert!(matches!(e, WorkerError::LineTooLong { .. }), "{e}");
        assert!(e.to_string().contains("at most 64 MiB"), "{e}");
        assert!(!w.alive());
    }

    #[test]
    fn an_endless_stderr_line_is_kept_cut() {
        let mut w = Worker::spawn(
            "sh",
            sh_worker(&["head -c 1000000 /dev/zero | tr '\\0' e >&2; exit 1"]),
        )
        .unwrap();
        let e = w
            .request(&RUN_ONE, Duration::from_secs(30))
            .unwrap_err()
            .to_string();
        assert!(e.contains("eeee"), "{e}");
        assert!(
            e.len() < 5000,
            "the stderr line was kept whole: {} bytes",
            e.len()
        );
    }

    use dyno_process::group::running;

    /// A `run` script that does not `exec` its worker, which leaves a
    /// child of its own: both go with the worker (only the direct child
    /// was killed before).
    #[test]
    fn a_wrapper_and_what_it_started_go_with_the_worker() {
        let mut cmd = Command::new("bash");
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let hello = r#"{"type":"hello","protocol":1,"runtime":{"name":"sh","version":"5"},"adapter":{"name":"t","version":"0"},"clock":{"source":"date"},"jit":false,"benchmarks":[]}"#;
        cmd.arg("-c").arg(format!(
            "trap '' TERM; (trap '' TERM; sleep 300) & echo $! > {}; read -r l; echo '{hello}'; \
             while :; do sleep 1; done",
            pidfile.display()
        ));
        let w = Worker::spawn("sh", cmd).unwrap();
        let grandchild: u32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let leader = w.pid();
        assert!(running(grandchild) && running(leader));
        let t = Instant::now();
        drop(w); // it ignores stdin's end and SIGTERM
        assert!(t.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(100));
        assert!(!running(leader), "the wrapper outlived the worker");
        assert!(
            !running(grandchild),
            "the wrapper's child outlived the worker"
        );
    }

    /// Names with terminal escapes, `|`, newlines or a leading `=` were
    /// taken as they came and printed raw, forging Markdown rows and
    /// spreadsheet formulas.
    #[test]
    fn a_hello_with_unsafe_names_is_refused() {
        for (bad, says) in [
            (r#""implementation":"toy\u001b[31m""#, "implementation"),
            (r#""implementation":"a|b""#, "implementation"),
            (r#""implementation":"=HYPERLINK(1)""#, "implementation"),
            (r#""implementation":"x\ny""#, "implementation"),
        ] {
            let hello = format!(
                r#"{{"type":"hello","protocol":1,"runtime":{{"name":"sh","version":"5"}},"adapter":{{"name":"t","version":"0"}},"clock":{{"source":"date"}},"jit":false,"benchmarks":[{{"id":"hash/keccak256/32B",{bad}}}]}}"#
            );
            let mut cmd = Command::new("bash");
            cmd.arg("-c").arg(format!(
                "read -r l; echo '{hello}'; while read -r l; do :; done"
            ));
            let e = Worker::spawn("sh", cmd).unwrap_err().to_string();
            assert!(
                e.contains(&format!("its hello names a {says}")),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn hello_then_requests_and_replies() {
        let mut w =
            Worker::spawn("sh", sh_worker(&[r#"echo '{"type":"samples","ns":[5]}'"#])).unwrap();
        assert_eq!(w.hello().runtime.version, "5");
        let r = w.request(&RUN_ONE, Duration::from_secs(5)).unwrap();
        assert!(matches!(r, Reply::Samples { ref ns, .. } if ns == &[5]));
        assert!(w.alive());
    }

    #[test]
    fn a_worker_that_dies_mid_request_is_reported_with_its_stderr() {
        let mut w =
            Worker::spawn("sh", sh_worker(&["echo 'panic: boom' >&2; kill -9 $$"])).unwrap();
        let e = w.request(&RUN_ONE, Duration::from_secs(10)).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, WorkerError::Died { .. }), "{msg}");
        assert!(
            msg.contains("signal: 9") && msg.contains("panic: boom"),
            "{msg}"
        );
        assert!(!w.alive());
    }

    #[test]
    fn silence_is_a_timeout_and_the_worker_is_stopped() {
        let mut w = Worker::spawn("sh", sh_worker(&["sleep 30"])).unwrap();
        let t0 = Instant::now();
        let e = w.request(&RUN_ONE, Duration::from_millis(300)).unwrap_err();
        assert!(matches!(e, WorkerError::Timeout { .. }), "{e}");
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert!(!w.alive());
    }

    #[test]
    fn garbage_on_stdout_and_wrong_versions_are_protocol_errors() {
        let mut w = Worker::spawn("sh", sh_worker(&["echo 'hello world'"])).unwrap();
        let e = w.request(&RUN_ONE, Duration::from_secs(5)).unwrap_err();
        assert!(e.to_string().contains("not a reply"), "{e}");

        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg(
            r#"read -r l; echo '{"type":"hello","protocol":9,"runtime":{"name":"x","version":"1"},"adapter":{"name":"x","version":"1"},"clock":{"source":"c"}}'"#,
        );
        let e = Worker::spawn("x", cmd).unwrap_err();
        assert!(e.to_string().contains("version 9"), "{e}");

        // a reply, then a debug line: caught before the next request
        let mut w = Worker::spawn(
            "sh",
            sh_worker(&[r#"echo '{"type":"samples","ns":[5]}'; echo 'debug: done'"#]),
        )
        .unwrap();
        w.request(&RUN_ONE, Duration::from_secs(5)).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        let e = w.request(&RUN_ONE, Duration::from_secs(5)).unwrap_err();
        assert!(
            e.to_string().contains(r#"outside a reply: "debug: done""#),
            "{e}"
        );
        assert!(!w.alive());

        let mut cmd = Command::new("bash");
        cmd.arg("-c").arg("echo 'cannot load library' >&2; exit 1");
        let e = Worker::spawn("x", cmd).unwrap_err();
        assert!(e.to_string().contains("cannot load library"), "{e}");
    }
}
