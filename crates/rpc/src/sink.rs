//! [`NullSink`]: a JSON-RPC server on loopback that answers at once.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::{Buf as _, BytesMut};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};

use crate::endpoint::Endpoint;
use crate::error::RpcError;

/// The transaction hash the sink returns for every `eth_sendRawTransaction`.
pub const SINK_TX_HASH: &str = "0x1111111111111111111111111111111111111111111111111111111111111111";

/// Largest request body the sink accepts (larger ones get HTTP 413).
const MAX_REQUEST_BYTES: usize = 16 << 20;

/// Largest request head the sink accepts (larger ones get HTTP 431).
const MAX_HEAD_BYTES: usize = 64 << 10;

/// Most request headers the sink parses (more get HTTP 431).
const MAX_HEADERS: usize = 64;

/// Options of a [`NullSink`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkOptions {
    /// Answer every `error_every`-th JSON-RPC call (counting calls inside
    /// batches, from 1) with a JSON-RPC error instead of a result, with HTTP
    /// 200 as geth does. 0 never injects errors.
    pub error_every: u64,
    /// Code of injected errors.
    pub error_code: i64,
    /// Message of injected errors.
    pub error_message: String,
    /// Wait this long before answering each HTTP request.
    pub delay: Option<Duration>,
    /// Serve from a dedicated OS thread with its own single-threaded tokio
    /// runtime instead of the caller's runtime. On a small machine this
    /// keeps the sink's work out of the client's scheduler (no cross-worker
    /// wake-ups); the bench shows which is faster.
    pub own_thread: bool,
}

impl Default for SinkOptions {
    fn default() -> Self {
        SinkOptions {
            error_every: 0,
            error_code: -32000,
            error_message: "nonce too low".to_owned(),
            delay: None,
            own_thread: false,
        }
    }
}

/// A JSON-RPC server on `127.0.0.1:0` that answers every request at once.
///
/// Each call (single or in a batch) gets a canned result echoing its id:
/// [`SINK_TX_HASH`] for `eth_sendRawTransaction`, something plausible for a
/// few common methods, `"0x1"` otherwise. It measures the load generator's
/// own ceiling, and serves tests (error injection, delay).
///
/// The HTTP side is a minimal HTTP/1.1 server of its own, not hyper's: the
/// sink exists to measure the client, so it should cost as little CPU as
/// possible. It handles keep-alive, `Connection: close`, HTTP/1.0,
/// `Content-Length` and chunked request bodies, `Expect: 100-continue` and
/// pipelined requests; anything but `POST` gets 405.
///
/// Runs on the tokio runtime that calls [`NullSink::start`], or on a thread
/// of its own ([`SinkOptions::own_thread`]); dropping the sink (or
/// [`NullSink::stop`]) shuts it down and closes its connections.
#[derive(Debug)]
pub struct NullSink {
    addr: SocketAddr,
    state: Arc<State>,
    shutdown: Option<oneshot::Sender<()>>,
    runner: Runner,
}

/// Where the sink runs.
#[derive(Debug)]
enum Runner {
    /// A task on the caller's runtime.
    Task(JoinHandle<()>),
    /// Its own OS thread; `done` fires when the thread's loop has ended.
    Thread {
        done: Option<oneshot::Receiver<()>>,
        thread: Option<std::thread::JoinHandle<()>>,
    },
}

#[derive(Debug)]
struct State {
    opts: SinkOptions,
    requests: AtomicU64,
    calls: AtomicU64,
}

impl NullSink {
    /// Binds `127.0.0.1:0` and starts serving: on the current tokio runtime,
    /// or on a thread of its own when [`SinkOptions::own_thread`] is set.
    pub async fn start(opts: SinkOptions) -> Result<NullSink, RpcError> {
        let listen_err = |what: &str, e: std::io::Error| RpcError::Connect {
            url: "http://127.0.0.1:0/".into(),
            reason: format!("null sink {what}: {e}"),
        };
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0")
            .map_err(|e| listen_err("cannot listen", e))?;
        std_listener
            .set_nonblocking(true)
            .map_err(|e| listen_err("cannot set non-blocking mode", e))?;
        let addr = std_listener
            .local_addr()
            .map_err(|e| listen_err("has no local address", e))?;
        let own_thread = opts.own_thread;
        let state = Arc::new(State {
            opts,
            requests: AtomicU64::new(0),
            calls: AtomicU64::new(0),
        });
        let (tx, rx) = oneshot::channel();
        let runner = if own_thread {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| listen_err("cannot build its runtime", e))?;
            let (done_tx, done_rx) = oneshot::channel();
            let thread_state = state.clone();
            let thread = std::thread::Builder::new()
                .name("dyno-null-sink".to_owned())
                .spawn(move || {
                    runtime.block_on(async move {
                        if let Ok(listener) = TcpListener::from_std(std_listener) {
                            accept_loop(listener, thread_state, rx).await;
                        }
                    });
                    let _ = done_tx.send(());
                })
                .map_err(|e| listen_err("cannot start its thread", e))?;
            Runner::Thread {
                done: Some(done_rx),
                thread: Some(thread),
            }
        } else {
            let listener =
                TcpListener::from_std(std_listener).map_err(|e| listen_err("cannot listen", e))?;
            Runner::Task(tokio::spawn(accept_loop(listener, state.clone(), rx)))
        };
        Ok(NullSink {
            addr,
            state,
            shutdown: Some(tx),
            runner,
        })
    }

    /// The endpoint to point a [`crate::Client`] at.
    pub fn endpoint(&self) -> Endpoint {
        Endpoint::from_socket_addr(self.addr)
    }

    /// The listening address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// HTTP requests answered or being answered so far.
    pub fn requests(&self) -> u64 {
        self.state.requests.load(Ordering::Relaxed)
    }

    /// JSON-RPC calls seen so far (a batch of n counts n).
    pub fn calls(&self) -> u64 {
        self.state.calls.load(Ordering::Relaxed)
    }

    /// Stops accepting, closes every connection and waits for that.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        match &mut self.runner {
            Runner::Task(task) => {
                let _ = task.await;
            }
            Runner::Thread { done, thread } => {
                if let Some(done) = done.take() {
                    let _ = done.await;
                }
                // The loop has ended, so this does not block.
                if let Some(thread) = thread.take() {
                    let _ = thread.join();
                }
            }
        }
    }
}

impl Drop for NullSink {
    fn drop(&mut self) {
        // Dropping the shutdown sender ends a sink on its own thread.
        self.shutdown.take();
        if let Runner::Task(task) = &self.runner {
            task.abort();
        }
    }
}

async fn accept_loop(
    listener: TcpListener,
    state: Arc<State>,
    mut shutdown: oneshot::Receiver<()>,
) {
    // Dropping the set at the end aborts every connection task.
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    // E.g. out of file descriptors: back off a little.
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                conns.spawn(serve(stream, state.clone()));
                while conns.try_join_next().is_some() {}
            }
        }
    }
}

/// Serves one connection until the peer closes it or asks to.
async fn serve(mut stream: TcpStream, state: Arc<State>) {
    let mut buf = BytesMut::with_capacity(16 << 10);
    let mut out: Vec<u8> = Vec::with_capacity(16 << 10);
    let mut answer: Vec<u8> = Vec::with_capacity(256);
    let mut continued = false;
    loop {
        let mut close = false;
        let mut used = 0;
        // Answer every complete request in the buffer (pipelining).
        loop {
            match parse_request(&buf[used..]) {
                Parsed::Partial { expect_continue } => {
                    if expect_continue && !continued {
                        out.extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
                        continued = true;
                    }
                    break;
                }
                Parsed::Request(req) => {
                    continued = false;
                    state.requests.fetch_add(1, Ordering::Relaxed);
                    if let Some(d) = state.opts.delay {
                        tokio::time::sleep(d).await;
                    }
                    answer.clear();
                    if req.post {
                        state.answer_into(&req.body, &mut answer);
                        write_response(&mut out, "200 OK", &answer, req.keep_alive, req.http10);
                    } else {
                        write_response(
                            &mut out,
                            "405 Method Not Allowed\r\nallow: POST",
                            b"",
                            req.keep_alive,
                            req.http10,
                        );
                    }
                    used += req.consumed;
                    if !req.keep_alive {
                        close = true;
                        break;
                    }
                }
                Parsed::Bad(status) => {
                    write_response(&mut out, status, b"", false, false);
                    close = true;
                    break;
                }
            }
        }
        buf.advance(used);
        if !out.is_empty() {
            if stream.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
        if close {
            let _ = stream.shutdown().await;
            return;
        }
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve(16 << 10);
        }
        match stream.read_buf(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// One complete request.
#[derive(Debug, PartialEq)]
struct HttpRequest<'a> {
    /// Bytes of the buffer it used (head and body).
    consumed: usize,
    /// Whether the method is POST.
    post: bool,
    /// Whether the request is HTTP/1.0.
    http10: bool,
    /// Whether the connection stays open after the response.
    keep_alive: bool,
    /// The body (decoded when chunked).
    body: Cow<'a, [u8]>,
}

/// The result of looking for a request at the start of a buffer.
#[derive(Debug, PartialEq)]
enum Parsed<'a> {
    /// More bytes are needed; `expect_continue` when the head is complete
    /// and asks for `100 Continue`.
    Partial { expect_continue: bool },
    /// A complete request.
    Request(HttpRequest<'a>),
    /// A request to refuse with this status line, closing the connection.
    Bad(&'static str),
}

fn parse_request(buf: &[u8]) -> Parsed<'_> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    let head_len = match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD_BYTES => {
            return Parsed::Bad("431 Request Header Fields Too Large");
        }
        Ok(httparse::Status::Partial) => {
            return Parsed::Partial {
                expect_continue: false,
            };
        }
        Err(httparse::Error::TooManyHeaders) => {
            return Parsed::Bad("431 Request Header Fields Too Large");
        }
        Err(_) => return Parsed::Bad("400 Bad Request"),
    };
    let http10 = req.version == Some(0);
    let mut keep_alive = !http10;
    let mut content_length: Option<usize> = None;
    let mut chunked = false;
    let mut expect_continue = false;
    for h in req.headers.iter() {
        let name = h.name;
        if name.eq_ignore_ascii_case("content-length") {
            let Some(n) = std::str::from_utf8(h.value)
                .ok()
                .and_then(|v| v.trim().parse::<usize>().ok())
            else {
                return Parsed::Bad("400 Bad Request");
            };
            if content_length.is_some_and(|c| c != n) {
                return Parsed::Bad("400 Bad Request");
            }
            content_length = Some(n);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = h
                .value
                .rsplit(|&b| b == b',')
                .next()
                .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"));
            if !chunked {
                return Parsed::Bad("501 Not Implemented");
            }
        } else if name.eq_ignore_ascii_case("connection") {
            for token in h.value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                if token.eq_ignore_ascii_case(b"close") {
                    keep_alive = false;
                } else if token.eq_ignore_ascii_case(b"keep-alive") {
                    keep_alive = true;
                }
            }
        } else if name.eq_ignore_ascii_case("expect") {
            expect_continue = h.value.trim_ascii().eq_ignore_ascii_case(b"100-continue");
        }
    }
    let post = req.method == Some("POST");
    let rest = &buf[head_len..];
    let (body_len, body) = if chunked {
        match decode_chunked(rest) {
            Chunked::Partial => {
                return Parsed::Partial { expect_continue };
            }
            Chunked::Bad(status) => return Parsed::Bad(status),
            Chunked::Complete(used, body) => (used, Cow::Owned(body)),
        }
    } else {
        let n = content_length.unwrap_or(0);
        if n > MAX_REQUEST_BYTES {
            return Parsed::Bad("413 Content Too Large");
        }
        if rest.len() < n {
            return Parsed::Partial { expect_continue };
        }
        (n, Cow::Borrowed(&rest[..n]))
    };
    Parsed::Request(HttpRequest {
        consumed: head_len + body_len,
        post,
        http10,
        keep_alive,
        body,
    })
}

enum Chunked {
    Partial,
    Bad(&'static str),
    /// Bytes used (chunks, last chunk, trailers) and the decoded body.
    Complete(usize, Vec<u8>),
}

fn decode_chunked(buf: &[u8]) -> Chunked {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let (size_len, size) = match httparse::parse_chunk_size(&buf[at..]) {
            Ok(httparse::Status::Complete(v)) => v,
            Ok(httparse::Status::Partial) => return Chunked::Partial,
            Err(_) => return Chunked::Bad("400 Bad Request"),
        };
        at += size_len;
        let Ok(size) = usize::try_from(size) else {
            return Chunked::Bad("413 Content Too Large");
        };
        if size == 0 {
            // Trailers (ignored), then an empty line.
            loop {
                let Some(eol) = buf[at..].windows(2).position(|w| w == b"\r\n") else {
                    return Chunked::Partial;
                };
                at += eol + 2;
                if eol == 0 {
                    return Chunked::Complete(at, body);
                }
            }
        }
        if body.len() + size > MAX_REQUEST_BYTES {
            return Chunked::Bad("413 Content Too Large");
        }
        if buf.len() < at + size + 2 {
            return Chunked::Partial;
        }
        body.extend_from_slice(&buf[at..at + size]);
        at += size;
        if &buf[at..at + 2] != b"\r\n" {
            return Chunked::Bad("400 Bad Request");
        }
        at += 2;
    }
}

/// Appends a complete response to `out`. `status` may carry extra header
/// lines after the reason phrase.
fn write_response(out: &mut Vec<u8>, status: &str, body: &[u8], keep_alive: bool, http10: bool) {
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.as_bytes());
    out.extend_from_slice(b"\r\ncontent-type: application/json\r\ncontent-length: ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = body.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
    if !keep_alive {
        out.extend_from_slice(b"\r\nconnection: close");
    } else if http10 {
        out.extend_from_slice(b"\r\nconnection: keep-alive");
    }
    out.extend_from_slice(b"\r\n\r\n");
    out.extend_from_slice(body);
}

/// The parts of a request object the sink looks at; `params` is skipped.
#[derive(Deserialize)]
struct Call<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Cow<'a, str>,
}

impl State {
    /// Appends the response body for a request body to `out`.
    fn answer_into(&self, body: &[u8], out: &mut Vec<u8>) {
        if let Some(id) = fast_send_raw_id(body) {
            self.answer_call(out, Some(id), "eth_sendRawTransaction");
            return;
        }
        let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
        if first == Some(b'[') {
            match serde_json::from_slice::<Vec<Call<'_>>>(body) {
                Ok(calls) if calls.is_empty() => {
                    write_error(out, None, -32600, "empty batch");
                }
                Ok(calls) => {
                    out.push(b'[');
                    for (i, call) in calls.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        self.answer_call(out, call.id.map(RawValue::get), &call.method);
                    }
                    out.push(b']');
                }
                Err(_) => write_error(out, None, -32700, "parse error"),
            }
        } else {
            match serde_json::from_slice::<Call<'_>>(body) {
                Ok(call) => self.answer_call(out, call.id.map(RawValue::get), &call.method),
                Err(_) => write_error(out, None, -32700, "parse error"),
            }
        }
    }

    #[cfg(test)]
    fn answer(&self, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.answer_into(body, &mut out);
        out
    }

    fn answer_call(&self, out: &mut Vec<u8>, id: Option<&str>, method: &str) {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let every = self.opts.error_every;
        if every > 0 && n.is_multiple_of(every) {
            write_error(out, id, self.opts.error_code, &self.opts.error_message);
            return;
        }
        let result: &str = match method {
            "eth_sendRawTransaction" | "eth_sendTransaction" => {
                // Written below without a JSON round trip.
                out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
                write_id(out, id);
                out.extend_from_slice(b",\"result\":\"");
                out.extend_from_slice(SINK_TX_HASH.as_bytes());
                out.extend_from_slice(b"\"}");
                return;
            }
            "eth_chainId" => "\"0x539\"",
            "net_version" => "\"1337\"",
            "eth_blockNumber" => "\"0x1\"",
            "eth_gasPrice" | "eth_maxPriorityFeePerGas" => "\"0x3b9aca00\"",
            "eth_getTransactionCount" | "eth_getBalance" => "\"0x0\"",
            "eth_getTransactionReceipt" | "eth_getTransactionByHash" => "null",
            "web3_clientVersion" => "\"dyno-null-sink\"",
            "net_peerCount" => "\"0x0\"",
            "eth_syncing" => "false",
            _ => "\"0x1\"",
        };
        out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        write_id(out, id);
        out.extend_from_slice(b",\"result\":");
        out.extend_from_slice(result.as_bytes());
        out.push(b'}');
    }
}

fn write_id(out: &mut Vec<u8>, id: Option<&str>) {
    out.extend_from_slice(id.unwrap_or("null").as_bytes());
}

/// The id of a body shaped exactly as dyno's generator writes
/// `eth_sendRawTransaction` ([`crate::send_raw_transaction_body`]):
/// `{"jsonrpc":"2.0","id":N,"method":"eth_sendRawTransaction","params":["0x…"]}`
/// (the parameter not checked further). Recognised with two prefix compares
/// and one SIMD scan so the sink spends next to nothing on it; any other body
/// goes through the JSON parser.
fn fast_send_raw_id(body: &[u8]) -> Option<&str> {
    const HEAD: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":";
    const MID: &[u8] = b",\"method\":\"eth_sendRawTransaction\",\"params\":[\"0x";
    let rest = body.strip_prefix(HEAD)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let (id, rest) = rest.split_at(digits);
    let rest = rest.strip_prefix(MID)?;
    // The parameter runs to the first quote; a backslash first means
    // escapes, which the general path handles.
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    let tail = rest[end..].strip_prefix(b"\"]}")?;
    if !tail.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    std::str::from_utf8(id).ok()
}

fn write_error(out: &mut Vec<u8>, id: Option<&str>, code: i64, message: &str) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    write_id(out, id);
    out.extend_from_slice(b",\"error\":{\"code\":");
    out.extend_from_slice(code.to_string().as_bytes());
    out.extend_from_slice(b",\"message\":");
    // Serialising a str cannot fail.
    let _ = serde_json::to_writer(&mut *out, message);
    out.extend_from_slice(b"}}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(every: u64) -> State {
        State {
            opts: SinkOptions {
                error_every: every,
                ..SinkOptions::default()
            },
            requests: AtomicU64::new(0),
            calls: AtomicU64::new(0),
        }
    }

    #[test]
    fn answers_single_batch_and_garbage() {
        let s = state(0);
        let out = s.answer(
            br#"{"jsonrpc":"2.0","id":42,"method":"eth_sendRawTransaction","params":["0x02"]}"#,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(r#"{{"jsonrpc":"2.0","id":42,"result":"{SINK_TX_HASH}"}}"#)
        );
        let out = s.answer(
            br#" [{"id":"a","method":"eth_chainId"},{"id":2,"method":"x","params":[{"a":[1]}]}]"#,
        );
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v[0]["id"], "a");
        assert_eq!(v[0]["result"], "0x539");
        assert_eq!(v[1]["result"], "0x1");
        let v: serde_json::Value = serde_json::from_slice(&s.answer(b"nope")).unwrap();
        assert_eq!(v["error"]["code"], -32700);
        assert_eq!(v["id"], serde_json::Value::Null);
        let v: serde_json::Value = serde_json::from_slice(&s.answer(b"[]")).unwrap();
        assert_eq!(v["error"]["code"], -32600);
        assert_eq!(s.calls.load(Ordering::Relaxed), 3);
    }

    fn request(p: Parsed<'_>) -> HttpRequest<'_> {
        match p {
            Parsed::Request(r) => r,
            other => panic!("expected a request, got {other:?}"),
        }
    }

    #[test]
    fn parses_http_requests() {
        let raw = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcdPOST";
        let r = request(parse_request(raw));
        assert_eq!(
            (r.consumed, r.post, r.keep_alive, r.http10),
            (raw.len() - 4, true, true, false)
        );
        assert_eq!(&*r.body, b"abcd");
        // Every prefix of a complete request is partial.
        for n in 0..raw.len() - 4 {
            assert_eq!(
                parse_request(&raw[..n]),
                Parsed::Partial {
                    expect_continue: false
                },
                "{n}"
            );
        }
        let r = request(parse_request(b"POST / HTTP/1.0\r\n\r\n"));
        assert!(r.http10 && !r.keep_alive);
        let r = request(parse_request(
            b"POST / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
        ));
        assert!(r.keep_alive);
        let r = request(parse_request(
            b"GET / HTTP/1.1\r\nConnection: x, close\r\n\r\n",
        ));
        assert!(!r.post && !r.keep_alive);
        assert_eq!(
            parse_request(
                b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 9\r\n\r\nab"
            ),
            Parsed::Partial {
                expect_continue: true
            }
        );
        let chunked = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nTrailer: 1\r\n\r\n";
        let r = request(parse_request(chunked));
        assert_eq!((&*r.body, r.consumed), (&b"abcde"[..], chunked.len()));
        for n in 0..chunked.len() {
            assert!(
                matches!(parse_request(&chunked[..n]), Parsed::Partial { .. }),
                "{n}"
            );
        }
        assert_eq!(
            parse_request(b"\x01\x02 nonsense\r\n\r\n"),
            Parsed::Bad("400 Bad Request")
        );
        assert_eq!(
            parse_request(b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"),
            Parsed::Bad("400 Bad Request")
        );
        assert_eq!(
            parse_request(b"POST / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n"),
            Parsed::Bad("413 Content Too Large")
        );
        assert_eq!(
            parse_request(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            Parsed::Bad("400 Bad Request")
        );
    }

    #[test]
    fn writes_responses() {
        let mut out = Vec::new();
        write_response(&mut out, "200 OK", b"{}", true, false);
        write_response(&mut out, "200 OK", &[b' '; 1234], false, false);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 200 OK"
        ));
        assert!(text.contains("content-length: 1234\r\nconnection: close\r\n\r\n"));
    }

    #[test]
    fn fast_path_matches_the_general_answer() {
        let body = crate::send_raw_transaction_body(123, "0x02f8AbCd");
        assert_eq!(fast_send_raw_id(&body), Some("123"));
        let fast = state(0).answer(&body);
        // The same request with its keys reordered takes the general path.
        let slow = state(0).answer(
            br#"{"id":123,"method":"eth_sendRawTransaction","params":["0x02f8AbCd"],"jsonrpc":"2.0"}"#,
        );
        assert_eq!(fast, slow);
        for bad in [
            &br#"{"jsonrpc":"2.0","id":01,"method":"eth_sendRawTransaction","params":["0x02"]}"#[..],
            br#"{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x0\"z"]}"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x02"]}x"#,
            br#"{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x02",1]}"#,
        ] {
            assert_eq!(
                fast_send_raw_id(bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn injects_every_nth() {
        let s = state(3);
        let kinds: Vec<bool> = (1..=7)
            .map(|i| {
                let out =
                    s.answer(format!(r#"{{"id":{i},"method":"eth_blockNumber"}}"#).as_bytes());
                let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
                assert_eq!(v["id"], i);
                v.get("error").is_some()
            })
            .collect();
        assert_eq!(kinds, [false, false, true, false, false, true, false]);
    }
}
