//! [`Client`]: a pool of keep-alive HTTP/1.1 connections to one endpoint.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::header::{CONTENT_TYPE, HOST};
use http::{HeaderValue, Method, Request, Uri};
use http_body::Body as _;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::AbortHandle;

use crate::endpoint::Endpoint;
use crate::error::RpcError;
use crate::json::{self, Reply};

/// Options of a [`Client`].
///
/// Construct with struct-update syntax:
/// `ClientOptions { connections: 16, ..ClientOptions::default() }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOptions {
    /// Number of keep-alive connections in the pool (at least 1). HTTP/1.1
    /// carries one request at a time per connection, so this caps the
    /// requests in flight; more wait in per-connection queues.
    pub connections: usize,
    /// Deadline for one request, from the call of [`Client::post`] (queueing
    /// included) to the last byte of the body; `None` waits forever. A request
    /// that times out closes its connection (its state is unknown); the pool
    /// reconnects on next use.
    pub request_timeout: Option<Duration>,
    /// Deadline for establishing one TCP connection.
    pub connect_timeout: Duration,
    /// Largest response body accepted, in bytes; a larger one fails with
    /// [`RpcError::BodyTooLarge`]. Default 64 MiB.
    pub max_response_bytes: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connections: 8,
            request_timeout: Some(Duration::from_secs(30)),
            connect_timeout: Duration::from_secs(5),
            max_response_bytes: 64 << 20,
        }
    }
}

/// A raw HTTP response: status and the complete body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The complete response body.
    pub body: Bytes,
}

impl RawResponse {
    /// Interprets the body as a single JSON-RPC response.
    ///
    /// A JSON-RPC error object becomes [`RpcError::Rpc`] whatever the HTTP
    /// status (nodes send them with 200, some proxies with 4xx/5xx); a
    /// non-2xx status without one becomes [`RpcError::HttpStatus`].
    pub fn reply(&self) -> Result<Reply, RpcError> {
        self.reply_for(None)
    }

    pub(crate) fn reply_for(&self, url: Option<&Arc<str>>) -> Result<Reply, RpcError> {
        let parsed = json::parse_response(&self.body);
        if (200..300).contains(&self.status) {
            return parsed;
        }
        match parsed {
            Err(e @ RpcError::Rpc { .. }) => Err(e),
            _ => Err(self.status_error(url)),
        }
    }

    fn status_error(&self, url: Option<&Arc<str>>) -> RpcError {
        RpcError::HttpStatus {
            url: url.cloned().unwrap_or_else(|| Arc::from("(endpoint)")),
            status: self.status,
            body: json::snippet(&self.body),
        }
    }
}

/// A pool of keep-alive HTTP/1.1 connections to one JSON-RPC endpoint.
///
/// Cloning is cheap (an `Arc`); clones share the pool. Each request goes to
/// an idle connection if there is one, otherwise it queues on the least
/// loaded one. Connections that close (server `Connection: close`, reset,
/// timeout) are re-established on next use.
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    endpoint: Endpoint,
    url: Arc<str>,
    uri: Uri,
    host: HeaderValue,
    opts: ClientOptions,
    slots: Box<[Slot]>,
    next_slot: AtomicUsize,
    next_id: AtomicU64,
}

/// One connection of the pool, padded to its own cache line.
#[derive(Debug)]
#[repr(align(64))]
struct Slot {
    /// Requests assigned to this connection and not yet finished.
    load: AtomicUsize,
    conn: tokio::sync::Mutex<Conn>,
}

#[derive(Debug, Default)]
struct Conn {
    sender: Option<http1::SendRequest<Full<Bytes>>>,
    task: Option<AbortHandle>,
}

impl Conn {
    fn close(&mut self) {
        self.sender = None;
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.close();
    }
}

/// Decrements a slot's load when a request ends, and closes the connection
/// if the request was abandoned (timeout, caller dropped the future) after
/// it was sent but before its response was read.
struct InFlight<'a> {
    slot: &'a Slot,
    sent_on: Option<AbortHandle>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.slot.load.fetch_sub(1, Ordering::Relaxed);
        if let Some(task) = self.sent_on.take() {
            task.abort();
        }
    }
}

impl Client {
    /// Opens `opts.connections` connections to `endpoint`.
    ///
    /// Fails with [`RpcError::Connect`] (naming the URL) if the first cannot
    /// be established.
    pub async fn connect(endpoint: &Endpoint, opts: ClientOptions) -> Result<Client, RpcError> {
        let url = endpoint.url_arc();
        let uri: Uri = endpoint
            .path()
            .parse()
            .map_err(|e| RpcError::InvalidEndpoint {
                url: endpoint.url().to_owned(),
                reason: format!("the path is not a valid request target ({e})"),
            })?;
        let host = HeaderValue::from_str(&endpoint.host_header()).map_err(|e| {
            RpcError::InvalidEndpoint {
                url: endpoint.url().to_owned(),
                reason: format!("the host is not a valid Host header ({e})"),
            }
        })?;
        let n = opts.connections.max(1);
        let slots = (0..n)
            .map(|_| Slot {
                load: AtomicUsize::new(0),
                conn: tokio::sync::Mutex::new(Conn::default()),
            })
            .collect();
        let client = Client {
            inner: Arc::new(Inner {
                endpoint: endpoint.clone(),
                url,
                uri,
                host,
                opts: ClientOptions {
                    connections: n,
                    ..opts
                },
                slots,
                next_slot: AtomicUsize::new(0),
                next_id: AtomicU64::new(1),
            }),
        };
        for slot in client.inner.slots.iter() {
            let mut conn = slot.conn.lock().await;
            client.inner.open(&mut conn).await?;
        }
        Ok(client)
    }

    /// The endpoint this client talks to.
    pub fn endpoint(&self) -> &Endpoint {
        &self.inner.endpoint
    }

    /// The options in force (`connections` at least 1).
    pub fn options(&self) -> &ClientOptions {
        &self.inner.opts
    }

    /// Requests currently assigned to each connection (in flight or queued).
    pub fn loads(&self) -> Vec<usize> {
        self.inner
            .slots
            .iter()
            .map(|s| s.load.load(Ordering::Relaxed))
            .collect()
    }

    /// POSTs an already-serialised JSON body and returns the HTTP status and
    /// complete body. No JSON work is done here: this is the hot path.
    ///
    /// Non-2xx statuses are not errors at this level; see
    /// [`RawResponse::reply`].
    pub async fn post(&self, body: Bytes) -> Result<RawResponse, RpcError> {
        match self.inner.opts.request_timeout {
            None => self.inner.post(body).await,
            Some(after) => match tokio::time::timeout(after, self.inner.post(body)).await {
                Ok(r) => r,
                Err(_) => Err(RpcError::Timeout {
                    url: self.inner.url.clone(),
                    after,
                }),
            },
        }
    }

    /// Calls `method` with `params` and parses the result into `T`.
    ///
    /// JSON-RPC errors, including those sent with HTTP 200, become
    /// [`RpcError::Rpc`]; see [`RpcError::class`] for their classes.
    pub async fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<T, RpcError> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut body = Vec::with_capacity(64 + method.len());
        json::write_request(&mut body, id, method, &params);
        let raw = self.post(body.into()).await?;
        let reply = raw.reply_for(Some(&self.inner.url))?;
        if reply.id.is_some_and(|got| got != id) {
            return Err(RpcError::invalid(format!(
                "response id {:?} does not match request id {id}",
                reply.id
            )));
        }
        reply.deserialize()
    }

    /// Sends a JSON-RPC batch (one HTTP request with a JSON array) and
    /// returns one result per call, in request order, each the call's result
    /// or its own error. The outer error is for the batch as a whole
    /// (transport, HTTP status, a server refusing the batch).
    pub async fn batch(
        &self,
        calls: &[(&str, serde_json::Value)],
    ) -> Result<Vec<Result<serde_json::Value, RpcError>>, RpcError> {
        if calls.is_empty() {
            return Ok(Vec::new());
        }
        let n = calls.len() as u64;
        let first = self.inner.next_id.fetch_add(n, Ordering::Relaxed);
        let mut body = Vec::with_capacity(64 * calls.len());
        body.push(b'[');
        for (i, (method, params)) in calls.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            json::write_request(&mut body, first + i as u64, method, params);
        }
        body.push(b']');
        let raw = self.post(body.into()).await?;
        let parsed = json::parse_batch(&raw.body, first, calls.len());
        if !(200..300).contains(&raw.status) {
            return match parsed {
                Err(e @ RpcError::Rpc { .. }) => Err(e),
                _ => Err(raw.status_error(Some(&self.inner.url))),
            };
        }
        Ok(parsed?
            .into_iter()
            .map(|r| r.and_then(Reply::into_value))
            .collect())
    }
}

impl Inner {
    /// Picks an idle connection (scanning from a rotating start), or the
    /// least loaded one.
    fn pick(&self) -> &Slot {
        let n = self.slots.len();
        let start = if n == 1 {
            0
        } else {
            self.next_slot.fetch_add(1, Ordering::Relaxed) % n
        };
        let mut best = start;
        let mut best_load = usize::MAX;
        for k in 0..n {
            let i = (start + k) % n;
            let load = self.slots[i].load.load(Ordering::Relaxed);
            if load == 0 {
                best = i;
                break;
            }
            if load < best_load {
                best_load = load;
                best = i;
            }
        }
        &self.slots[best]
    }

    fn request(&self, body: Bytes) -> Request<Full<Bytes>> {
        // hyper writes Content-Length itself from the body's exact size.
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = Method::POST;
        *req.uri_mut() = self.uri.clone();
        let h = req.headers_mut();
        h.insert(HOST, self.host.clone());
        h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        req
    }

    async fn post(&self, body: Bytes) -> Result<RawResponse, RpcError> {
        let slot = self.pick();
        slot.load.fetch_add(1, Ordering::Relaxed);
        let mut guard = InFlight {
            slot,
            sent_on: None,
        };
        let mut req = self.request(body);
        let mut attempt = 0;
        let response = loop {
            attempt += 1;
            let sent = {
                let mut conn = slot.conn.lock().await;
                if conn.sender.as_ref().is_none_or(|s| s.is_closed()) {
                    conn.close();
                    self.open(&mut conn).await?;
                }
                let Some(sender) = conn.sender.as_mut() else {
                    unreachable!("open() sets the sender");
                };
                if sender.ready().await.is_err() {
                    // Closed while idle (e.g. the server's keep-alive
                    // timeout): nothing was sent, so reconnecting is safe.
                    conn.close();
                    if attempt < 2 {
                        continue;
                    }
                    return Err(self.conn_err("the connection closed before the request was sent"));
                }
                // Dispatches now; the future only waits for the response, so
                // the connection is free for the next request in its queue
                // as soon as this one's response has been read.
                let sent = sender.try_send_request(req);
                guard.sent_on = conn.task.clone();
                sent
            };
            match sent.await {
                Ok(response) => break response,
                Err(mut e) => match e.take_message() {
                    // The connection died before the request was written:
                    // safe to send it again on a fresh one.
                    Some(unsent) if attempt < 2 => {
                        // Make sure the next attempt does not pick the same
                        // connection up again.
                        if let Some(task) = guard.sent_on.take() {
                            task.abort();
                        }
                        req = unsent;
                    }
                    _ => return Err(self.hyper_err(e.into_error())),
                },
            }
        };
        let status = response.status().as_u16();
        let body = self.read_body(response.into_body()).await?;
        // Complete: the connection is clean and reusable.
        guard.sent_on = None;
        drop(guard);
        Ok(RawResponse { status, body })
    }

    async fn read_body(&self, mut body: Incoming) -> Result<Bytes, RpcError> {
        let limit = self.opts.max_response_bytes;
        let hint = body.size_hint();
        if let Some(exact) = hint.exact()
            && exact > limit as u64
        {
            // Nothing read yet: report what the server declared.
            return Err(RpcError::BodyTooLarge {
                url: self.url.clone(),
                limit,
                so_far: 0,
                declared: Some(exact),
            });
        }
        // A body that arrives in one frame (the common case for small
        // responses) is passed on without a copy.
        let mut first: Option<Bytes> = None;
        let mut joined: Option<BytesMut> = None;
        let mut total = 0usize;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| self.hyper_err(e))?;
            let Ok(data) = frame.into_data() else {
                continue; // trailers
            };
            total += data.len();
            if total > limit {
                return Err(RpcError::BodyTooLarge {
                    url: self.url.clone(),
                    limit,
                    so_far: total,
                    declared: None,
                });
            }
            if let Some(buf) = joined.as_mut() {
                buf.extend_from_slice(&data);
            } else if let Some(head) = first.take() {
                let expected = hint.exact().map_or(0, |n| n as usize);
                let mut buf = BytesMut::with_capacity(expected.max(2 * total));
                buf.extend_from_slice(&head);
                buf.extend_from_slice(&data);
                joined = Some(buf);
            } else {
                first = Some(data);
            }
        }
        Ok(match (joined, first) {
            (Some(buf), _) => buf.freeze(),
            (None, Some(only)) => only,
            (None, None) => Bytes::new(),
        })
    }

    /// Establishes a new connection into `conn`.
    async fn open(&self, conn: &mut Conn) -> Result<(), RpcError> {
        let connect_err = |reason: String| RpcError::Connect {
            url: self.url.clone(),
            reason,
        };
        let addr = (self.endpoint.host(), self.endpoint.port());
        let stream =
            match tokio::time::timeout(self.opts.connect_timeout, TcpStream::connect(addr)).await {
                Ok(Ok(s)) => s,
                Ok(Err(e)) => return Err(connect_err(e.to_string())),
                Err(_) => {
                    return Err(connect_err(format!(
                        "no connection within {:?} (ClientOptions::connect_timeout)",
                        self.opts.connect_timeout
                    )));
                }
            };
        stream
            .set_nodelay(true)
            .map_err(|e| connect_err(format!("cannot set TCP_NODELAY: {e}")))?;
        let (sender, connection) = http1::Builder::new()
            .writev(false)
            .handshake(TokioIo::new(stream))
            .await
            .map_err(|e| connect_err(format!("HTTP handshake failed: {e}")))?;
        let task = tokio::spawn(async move {
            // Errors surface through the request futures.
            let _ = connection.await;
        });
        conn.sender = Some(sender);
        conn.task = Some(task.abort_handle());
        Ok(())
    }

    fn conn_err(&self, reason: impl Into<String>) -> RpcError {
        RpcError::Connection {
            url: self.url.clone(),
            reason: reason.into(),
        }
    }

    fn hyper_err(&self, e: hyper::Error) -> RpcError {
        if e.is_parse() || e.is_parse_status() {
            return RpcError::invalid(format!("malformed HTTP response from {}: {e}", self.url));
        }
        let mut reason = e.to_string();
        let mut source = std::error::Error::source(&e);
        while let Some(s) = source {
            reason.push_str(": ");
            reason.push_str(&s.to_string());
            source = s.source();
        }
        self.conn_err(reason)
    }
}
