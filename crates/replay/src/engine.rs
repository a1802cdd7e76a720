//! A small blocking Engine-API client: one keep-alive HTTP/1.1 connection
//! to the client's authenticated port, a fresh JWT per request, and each
//! call timed from the first byte written to the last byte read.
//!
//! The client is another process, so every answer is bounded: the whole
//! call (not each read) within its limit, a header line within
//! [`MAX_HEADER_LINE`] and a body within [`MAX_BODY`]. A client that
//! dribbles, never ends a line or announces a body of a terabyte fails
//! the call, at the cost of the limit and the bound.

use std::io::{BufRead as _, BufReader, Read, Write as _};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The longest header line (status or field) read from a client.
pub const MAX_HEADER_LINE: u64 = 8 * 1024;
/// The largest answer body read from a client (a payload status is some
/// hundred bytes).
pub const MAX_BODY: usize = 16 << 20;

/// The connection, each read given what is left of the call's deadline.
#[derive(Debug)]
struct Deadlined {
    stream: TcpStream,
    deadline: Option<Instant>,
}

impl Read for Deadlined {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let late = || {
            std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "no complete answer within the call's time limit",
            )
        };
        let Some(deadline) = self.deadline else {
            return self.stream.read(buf);
        };
        let left = deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(late)?;
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf).map_err(|e| {
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) {
                late()
            } else {
                e
            }
        })
    }
}

use serde_json::{Value, json};

/// What went wrong talking to the client.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The connection failed or timed out.
    #[error("the Engine API at 127.0.0.1:{port}: {source}")]
    Io {
        port: u16,
        #[source]
        source: std::io::Error,
    },
    /// Not an HTTP response, or not JSON-RPC.
    #[error("the Engine API answered {method} with something unreadable: {0}", method = .1)]
    Protocol(String, String),
    /// An HTTP error status (401: the JWT was refused).
    #[error("the Engine API answered {method} with HTTP {status}: {body}")]
    Status {
        method: String,
        status: u16,
        body: String,
    },
    /// A JSON-RPC error.
    #[error("{method} failed: {message} (code {code})")]
    Rpc {
        method: String,
        code: i64,
        message: String,
    },
    /// A payload status other than VALID.
    #[error("{method}: the client says {status}{}", reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    NotValid {
        method: String,
        status: String,
        reason: Option<String>,
    },
}

/// A connection to a client's Engine API.
#[derive(Debug)]
pub struct Engine {
    port: u16,
    secret: [u8; 32],
    stream: BufReader<Deadlined>,
    limit: Duration,
    next_id: u64,
}

impl Engine {
    /// Connect to `127.0.0.1:port` with the JWT secret, each call waiting
    /// at most `limit`.
    pub fn connect(port: u16, secret: [u8; 32], limit: Duration) -> Result<Self, EngineError> {
        let io = |source| EngineError::Io { port, source };
        let stream = TcpStream::connect(("127.0.0.1", port)).map_err(io)?;
        stream.set_read_timeout(Some(limit)).map_err(io)?;
        stream.set_write_timeout(Some(limit)).map_err(io)?;
        stream.set_nodelay(true).map_err(io)?;
        Ok(Self {
            port,
            secret,
            stream: BufReader::new(Deadlined {
                stream,
                deadline: None,
            }),
            limit,
            next_id: 1,
        })
    }

    /// Let each later call take at most `limit` (a probe while a client
    /// starts gets what is left of the wait; the calls after, the full
    /// limit).
    pub fn set_limit(&mut self, limit: Duration) {
        self.limit = limit;
        let stream = &self.stream.get_ref().stream;
        let _ = stream.set_read_timeout(Some(limit));
        let _ = stream.set_write_timeout(Some(limit));
    }

    /// The JWT secret its tokens are signed with.
    pub fn secret(&self) -> &[u8; 32] {
        &self.secret
    }

    /// The port it talks to (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Call `method` with `params`; its `result` and how long the call
    /// took.
    pub fn call(&mut self, method: &str, params: Value) -> Result<(Value, Duration), EngineError> {
        let token = crate::jwt::token_now(&self.secret);
        self.call_as(method, params, Some(&token))
    }

    /// [`call`](Self::call) with `token` as its bearer token instead of
    /// one of the secret (`None`: no `Authorization` header at all), to
    /// see a client refuse it.
    pub fn call_as(
        &mut self,
        method: &str,
        params: Value,
        token: Option<&str>,
    ) -> Result<(Value, Duration), EngineError> {
        let body =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
                .to_string();
        self.next_id += 1;
        let authorization = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{authorization}\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        let io = |source| EngineError::Io {
            port: self.port,
            source,
        };
        let started = Instant::now();
        self.stream.get_mut().deadline = Some(started + self.limit);
        self.stream
            .get_mut()
            .stream
            .write_all(request.as_bytes())
            .map_err(io)?;
        let (status, reply) = self.read_response(method)?;
        let took = started.elapsed();
        let text = String::from_utf8_lossy(&reply).into_owned();
        if status != 200 {
            return Err(EngineError::Status {
                method: method.into(),
                status,
                body: text.chars().take(300).collect(),
            });
        }
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| EngineError::Protocol(format!("{e}: {text:.300}"), method.into()))?;
        if let Some(err) = value.get("error") {
            return Err(EngineError::Rpc {
                method: method.into(),
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: err
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .into(),
            });
        }
        Ok((value.get("result").cloned().unwrap_or(Value::Null), took))
    }

    fn read_response(&mut self, method: &str) -> Result<(u16, Vec<u8>), EngineError> {
        let port = self.port;
        let io = |source| EngineError::Io { port, source };
        let bad = |what: &str| EngineError::Protocol(what.into(), method.into());
        let mut line = String::new();
        header_line(&mut self.stream, &mut line).map_err(io)?;
        let status: u16 = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(&format!("status line {line:?}")))?;
        let mut length = None;
        let mut chunked = false;
        loop {
            line.clear();
            header_line(&mut self.stream, &mut line).map_err(io)?;
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (name, value) = l.split_once(':').unwrap_or((l, ""));
            let (name, value) = (name.trim().to_ascii_lowercase(), value.trim());
            if name == "content-length" {
                length = value.parse::<usize>().ok();
            } else if name == "transfer-encoding" && value.eq_ignore_ascii_case("chunked") {
                chunked = true;
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                line.clear();
                header_line(&mut self.stream, &mut line).map_err(io)?;
                let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                    .map_err(|_| bad(&format!("chunk size {line:?}")))?;
                if body.len().saturating_add(size) > MAX_BODY {
                    return Err(bad(&format!("a body of more than {} MiB", MAX_BODY >> 20)));
                }
                let mut chunk = vec![0; size + 2];
                self.stream.read_exact(&mut chunk).map_err(io)?;
                if size == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            let n = length.ok_or_else(|| bad("no content length"))?;
            if n > MAX_BODY {
                return Err(bad(&format!(
                    "a body of {n} bytes, more than {} MiB",
                    MAX_BODY >> 20
                )));
            }
            body.resize(n, 0);
            self.stream.read_exact(&mut body).map_err(io)?;
        }
        Ok((status, body))
    }

    /// `engine_newPayloadV4` of `params`; `VALID` or an error saying what
    /// the client said instead. Returns the time the call took.
    pub fn new_payload(&mut self, params: Value) -> Result<Duration, EngineError> {
        let method = "engine_newPayloadV4";
        let block = params.pointer("/0/blockHash").cloned();
        let (result, took) = self.call(method, params)?;
        expect_valid(method, &result, block.as_ref())?;
        Ok(took)
    }

    /// `engine_forkchoiceUpdatedV3` of `params`; its payload status must
    /// be `VALID`, for the head asked for.
    pub fn forkchoice_updated(&mut self, params: Value) -> Result<Duration, EngineError> {
        let method = "engine_forkchoiceUpdatedV3";
        let head = params.pointer("/0/headBlockHash").cloned();
        let (result, took) = self.call(method, params)?;
        expect_valid(
            method,
            result.get("payloadStatus").unwrap_or(&Value::Null),
            head.as_ref(),
        )?;
        Ok(took)
    }
}

/// One header line of at most [`MAX_HEADER_LINE`] bytes into `line`.
fn header_line(r: &mut BufReader<Deadlined>, line: &mut String) -> std::io::Result<()> {
    let n = r.by_ref().take(MAX_HEADER_LINE).read_line(line)?;
    if n as u64 == MAX_HEADER_LINE && !line.ends_with('\n') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a header line of more than {MAX_HEADER_LINE} bytes"),
        ));
    }
    if n == 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "the connection closed before a complete answer",
        ));
    }
    Ok(())
}

/// A `PayloadStatusV1` that must be `VALID` and, when the call named a
/// block (`block`), say that block is the latest valid one: a client that
/// answers VALID for another hash has not validated this block.
fn expect_valid(method: &str, status: &Value, block: Option<&Value>) -> Result<(), EngineError> {
    let s = status.get("status").and_then(Value::as_str).unwrap_or("");
    if s == "VALID" {
        let Some(want) = block.and_then(Value::as_str) else {
            return Ok(());
        };
        let latest = status.get("latestValidHash").and_then(Value::as_str);
        if latest.is_some_and(|h| h.eq_ignore_ascii_case(want)) {
            return Ok(());
        }
        return Err(EngineError::NotValid {
            method: method.into(),
            status: "VALID".into(),
            reason: Some(format!(
                "its latestValidHash is {}, not the block's {want}",
                latest.unwrap_or("missing")
            )),
        });
    }
    Err(EngineError::NotValid {
        method: method.into(),
        status: if s.is_empty() {
            status.to_string()
        } else {
            s.into()
        },
        reason: status
            .get("validationError")
            .and_then(Value::as_str)
            .map(String::from),
    })
}
