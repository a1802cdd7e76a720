//! End-to-end tests of the client against the null sink and against tiny
//! hand-written HTTP servers (chunked, Connection: close, errors).

use std::time::Duration;

use bytes::Bytes;
use dyno_rpc::{
    Client, ClientOptions, Endpoint, ErrorClass, NullSink, RpcError, SINK_TX_HASH, SinkOptions,
    blast, send_raw_transaction_body,
};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

fn opts(connections: usize) -> ClientOptions {
    ClientOptions {
        connections,
        ..ClientOptions::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_trip_single_and_raw() {
    let sink = NullSink::start(SinkOptions::default()).await.unwrap();
    let client = Client::connect(&sink.endpoint(), opts(2)).await.unwrap();

    let hash: String = client
        .call("eth_sendRawTransaction", json!(["0x02f8"]))
        .await
        .unwrap();
    assert_eq!(hash, SINK_TX_HASH);
    let chain: String = client.call("eth_chainId", json!([])).await.unwrap();
    assert_eq!(chain, "0x539");
    let receipt: Option<serde_json::Value> = client
        .call("eth_getTransactionReceipt", json!([SINK_TX_HASH]))
        .await
        .unwrap();
    assert_eq!(receipt, None);

    // The hot path: raw bytes in, raw bytes out, then the fast parse.
    let raw = client
        .post(send_raw_transaction_body(77, "0x02f8aa"))
        .await
        .unwrap();
    assert_eq!(raw.status, 200);
    let reply = raw.reply().unwrap();
    assert_eq!(reply.id, Some(77));
    assert_eq!(reply.as_str(), Some(SINK_TX_HASH));

    // A wrong result type is an invalid response, not a panic.
    let e = client
        .call::<u64>("eth_chainId", json!([]))
        .await
        .unwrap_err();
    assert_eq!(e.class(), ErrorClass::InvalidResponse, "{e}");

    assert_eq!(sink.requests(), 5);
    assert_eq!(sink.calls(), 5);
    sink.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_round_trip() {
    let sink = NullSink::start(SinkOptions {
        error_every: 2,
        error_code: -32000,
        error_message: "already known".into(),
        ..SinkOptions::default()
    })
    .await
    .unwrap();
    let client = Client::connect(&sink.endpoint(), opts(1)).await.unwrap();
    let out = client
        .batch(&[
            ("eth_chainId", json!([])),
            ("eth_sendRawTransaction", json!(["0x02"])),
            ("eth_blockNumber", json!([])),
        ])
        .await
        .unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].as_ref().unwrap(), &json!("0x539"));
    let e = out[1].as_ref().unwrap_err();
    assert_eq!(e.class(), ErrorClass::AlreadyKnown, "{e}");
    assert_eq!(out[2].as_ref().unwrap(), &json!("0x1"));
    assert!(client.batch(&[]).await.unwrap().is_empty());
    assert_eq!((sink.requests(), sink.calls()), (1, 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_errors_with_http_200_become_rpc_errors() {
    let sink = NullSink::start(SinkOptions {
        error_every: 3,
        ..SinkOptions::default()
    })
    .await
    .unwrap();
    let client = Client::connect(&sink.endpoint(), opts(1)).await.unwrap();
    let mut classes = Vec::new();
    for _ in 0..6 {
        let raw = client
            .post(send_raw_transaction_body(1, "0x02"))
            .await
            .unwrap();
        assert_eq!(raw.status, 200);
        classes.push(raw.reply().err().map(|e| e.class()));
    }
    let nonce = Some(ErrorClass::NonceTooLow);
    assert_eq!(classes, [None, None, nonce, None, None, nonce]);

    // Calls 7 and 8 succeed, call 9 is the next injected error.
    for _ in 0..2 {
        let hash: String = client
            .call("eth_sendRawTransaction", json!(["0x02"]))
            .await
            .unwrap();
        assert_eq!(hash, SINK_TX_HASH);
    }
    let e = client
        .call::<String>("eth_sendRawTransaction", json!(["0x02"]))
        .await
        .unwrap_err();
    match &e {
        RpcError::Rpc {
            code,
            message,
            data,
        } => {
            assert_eq!(
                (*code, message.as_str(), data),
                (-32000, "nonce too low", &None)
            );
        }
        other => panic!("expected an Rpc error, got {other:?}"),
    }
    assert_eq!(e.class().as_str(), "nonce_too_low");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blast_counts_ok_and_errors() {
    let sink = NullSink::start(SinkOptions {
        error_every: 10,
        ..SinkOptions::default()
    })
    .await
    .unwrap();
    let client = Client::connect(&sink.endpoint(), opts(4)).await.unwrap();
    let bodies: Vec<Bytes> = (0..1000)
        .map(|i| send_raw_transaction_body(i, "0x02f87001"))
        .collect();
    let b = blast(&client, &bodies, 16).await;
    assert_eq!((b.ok, b.err), (900, 100));
    assert_eq!(b.errors.get(&ErrorClass::NonceTooLow), Some(&100));
    assert!(b.rate > 0.0);
    assert_eq!(sink.requests(), 1000);
    assert!(client.loads().iter().all(|&l| l == 0));
    sink.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_limit_error_names_limit_and_size() {
    let limited = |connections| ClientOptions {
        connections,
        max_response_bytes: 10,
        ..ClientOptions::default()
    };
    // Content-Length over the limit: refused before reading.
    let sink = NullSink::start(SinkOptions::default()).await.unwrap();
    let client = Client::connect(&sink.endpoint(), limited(1)).await.unwrap();
    let e = client
        .call::<String>("eth_chainId", json!([]))
        .await
        .unwrap_err();
    assert_eq!(e.class(), ErrorClass::InvalidResponse);
    let msg = e.to_string();
    assert!(msg.contains("limit of 10 bytes"), "{msg}");
    assert!(msg.contains("max_response_bytes"), "{msg}");
    assert!(msg.contains("announced 41 bytes (Content-Length)"), "{msg}");
    // The pool recovers: the next call with a fitting limit is fine.
    let ok = Client::connect(&sink.endpoint(), opts(1)).await.unwrap();
    let _: String = ok.call("eth_chainId", json!([])).await.unwrap();

    // Chunked, so the size shows only while reading.
    fn respond(_: &[u8]) -> Vec<u8> {
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n{\"id\":1,\r\n8\r\n\"result\"\r\n7\r\n:\"0x1\"}\r\n0\r\n\r\n"
            .to_vec()
    }
    let (ep, server) = tiny_server(respond, false).await;
    let client = Client::connect(&ep, limited(1)).await.unwrap();
    let msg = client
        .call::<String>("eth_chainId", json!([]))
        .await
        .unwrap_err()
        .to_string();
    assert!(msg.contains("limit of 10 bytes"), "{msg}");
    assert!(msg.contains("16 bytes received so far"), "{msg}");
    let client = Client::connect(&ep, opts(1)).await.unwrap();
    let v: String = client.call("eth_chainId", json!([])).await.unwrap();
    assert_eq!(v, "0x1");
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_refused_names_the_url() {
    // A port that was just free: bind, read the port, close.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let ep = Endpoint::parse(&format!("http://127.0.0.1:{port}")).unwrap();
    let e = Client::connect(&ep, opts(1)).await.unwrap_err();
    assert_eq!(e.class(), ErrorClass::Connection);
    let msg = e.to_string();
    assert!(msg.contains(&format!("http://127.0.0.1:{port}/")), "{msg}");
    assert!(msg.contains("cannot connect"), "{msg}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_is_classified_and_pool_recovers() {
    let sink = NullSink::start(SinkOptions {
        delay: Some(Duration::from_secs(30)),
        ..SinkOptions::default()
    })
    .await
    .unwrap();
    let client = Client::connect(
        &sink.endpoint(),
        ClientOptions {
            connections: 1,
            request_timeout: Some(Duration::from_millis(50)),
            ..ClientOptions::default()
        },
    )
    .await
    .unwrap();
    for _ in 0..2 {
        let e = client
            .call::<String>("eth_chainId", json!([]))
            .await
            .unwrap_err();
        assert_eq!(e.class(), ErrorClass::Timeout, "{e}");
        assert!(e.to_string().contains("timed out after 50ms"), "{e}");
    }
    assert_eq!(client.loads(), [0]);
}

/// Reads one HTTP request (head plus Content-Length body) from `stream`.
/// Returns `None` at EOF.
async fn read_request(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            let total = end + 4 + len;
            while buf.len() < total {
                let mut chunk = [0u8; 4096];
                let n = stream.read(&mut chunk).await.ok()?;
                if n == 0 {
                    return None;
                }
                buf.extend_from_slice(&chunk[..n]);
            }
            let body = buf[end + 4..total].to_vec();
            buf.drain(..total);
            return Some(body);
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Serves each connection with `respond(request_body) -> raw HTTP bytes`;
/// closes the connection after one response when `close` is set.
async fn tiny_server(
    respond: fn(&[u8]) -> Vec<u8>,
    close: bool,
) -> (Endpoint, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let ep = Endpoint::from_socket_addr(listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut buf = Vec::new();
                while let Some(body) = read_request(&mut stream, &mut buf).await {
                    if stream.write_all(&respond(&body)).await.is_err() {
                        return;
                    }
                    if close {
                        let _ = stream.shutdown().await;
                        return;
                    }
                }
            });
        }
    });
    (ep, task)
}

/// The id of a request body.
fn id_of(body: &[u8]) -> u64 {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap();
    v["id"].as_u64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunked_response_is_reassembled() {
    fn respond(body: &[u8]) -> Vec<u8> {
        // Like geth's answer to an eth_getLogs of 20 000 logs: ~12 MB,
        // chunked in 4 KiB pieces as Go's net/http writes them.
        let data = format!("0x{}", "ab".repeat(256));
        let logs: Vec<serde_json::Value> = (0..20_000)
            .map(|i| {
                json!({
                    "address": "0x5fbdb2315678afecb367f032d93f642f64180aa3",
                    "topics": ["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"],
                    "data": data,
                    "logIndex": format!("0x{i:x}"),
                })
            })
            .collect();
        let json =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id_of(body), "result": logs}))
                .unwrap();
        let mut out = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
        for chunk in json.chunks(4096) {
            out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            out.extend_from_slice(chunk);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    }
    let (ep, server) = tiny_server(respond, false).await;
    let client = Client::connect(&ep, opts(1)).await.unwrap();
    for _ in 0..2 {
        let raw = client
            .post(Bytes::from_static(
                br#"{"jsonrpc":"2.0","id":5,"method":"eth_getLogs","params":[{}]}"#,
            ))
            .await
            .unwrap();
        assert!(raw.body.len() > 12_000_000, "{}", raw.body.len());
        let logs: Vec<serde_json::Value> = raw.reply().unwrap().deserialize().unwrap();
        assert_eq!(logs.len(), 20_000);
        assert_eq!(logs[19_999]["logIndex"], "0x4e1f");
    }
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sink_speaks_http_1_1() {
    let sink = NullSink::start(SinkOptions::default()).await.unwrap();
    let mut s = TcpStream::connect(sink.local_addr()).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}"#;
    // Three pipelined requests in one write: Content-Length, chunked, a GET,
    // the last one closing the connection.
    let req = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}\
         POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\
         5\r\n{{\"id\"\r\n1a\r\n:2,\"method\":\"eth_chainId\"}}\r\n0\r\n\r\n\
         GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    let parts: Vec<&str> = out.split("HTTP/1.1 ").skip(1).collect();
    assert_eq!(parts.len(), 3, "{out}");
    assert!(
        parts[0].starts_with("200 OK")
            && parts[0].ends_with(r#"{"jsonrpc":"2.0","id":1,"result":"0x1"}"#),
        "{out}"
    );
    assert!(
        parts[1].ends_with(r#"{"jsonrpc":"2.0","id":2,"result":"0x539"}"#),
        "{out}"
    );
    assert!(
        parts[2].starts_with("405 Method Not Allowed") && parts[2].contains("connection: close"),
        "{out}"
    );

    // Expect: 100-continue gets its interim response before the body.
    let mut s = TcpStream::connect(sink.local_addr()).await.unwrap();
    let head = format!(
        "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut interim = [0u8; 25];
    s.read_exact(&mut interim).await.unwrap();
    assert_eq!(&interim, b"HTTP/1.1 100 Continue\r\n\r\n");
    s.write_all(body.as_bytes()).await.unwrap();
    let mut out = String::new();
    // HTTP/1.0 without keep-alive: the sink closes after answering.
    s.read_to_string(&mut out).await.unwrap();
    assert!(
        out.starts_with("HTTP/1.1 200 OK") && out.contains("connection: close"),
        "{out}"
    );
    assert_eq!(sink.requests(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_close_and_close_delimited_bodies() {
    fn respond(body: &[u8]) -> Vec<u8> {
        let json = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":"0x2a"}}"#,
            id_of(body)
        );
        // No Content-Length: the body ends when the server closes.
        format!(
            "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\n\r\n{json}"
        )
        .into_bytes()
    }
    let (ep, server) = tiny_server(respond, true).await;
    let client = Client::connect(&ep, opts(1)).await.unwrap();
    for _ in 0..5 {
        let v: String = client.call("eth_blockNumber", json!([])).await.unwrap();
        assert_eq!(v, "0x2a");
    }
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_errors_are_classified() {
    fn respond(body: &[u8]) -> Vec<u8> {
        let id = id_of(body);
        let (status, json) = match id % 3 {
            // A proxy's plain-text 503.
            0 => ("503 Service Unavailable", "upstream down".to_owned()),
            // A JSON-RPC error object sent with a 4xx status.
            1 => (
                "400 Bad Request",
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"invalid argument 0: hex string without 0x prefix"}}}}"#
                ),
            ),
            _ => ("200 OK", "not json".to_owned()),
        };
        format!(
            "HTTP/1.1 {status}\r\nContent-Length: {}\r\n\r\n{json}",
            json.len()
        )
        .into_bytes()
    }
    let (ep, server) = tiny_server(respond, false).await;
    let client = Client::connect(&ep, opts(1)).await.unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let e = client
            .call::<String>("eth_sendRawTransaction", json!(["02"]))
            .await
            .unwrap_err();
        seen.push((e.class(), e.to_string()));
    }
    seen.sort();
    assert_eq!(seen[0].0, ErrorClass::RpcOther);
    assert!(seen[0].1.contains("-32602"), "{}", seen[0].1);
    assert_eq!(seen[1].0, ErrorClass::HttpStatus);
    assert!(
        seen[1].1.contains("503") && seen[1].1.contains("upstream down"),
        "{}",
        seen[1].1
    );
    assert_eq!(seen[2].0, ErrorClass::InvalidResponse);
    server.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_reset_is_a_connection_error() {
    fn respond(_: &[u8]) -> Vec<u8> {
        // Half a response, then the connection closes.
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"".to_vec()
    }
    let (ep, server) = tiny_server(respond, true).await;
    let client = Client::connect(&ep, opts(1)).await.unwrap();
    let e = client
        .call::<String>("eth_chainId", json!([]))
        .await
        .unwrap_err();
    assert_eq!(e.class(), ErrorClass::Connection, "{e}");
    server.abort();
}

#[tokio::test(flavor = "current_thread")]
async fn sink_on_its_own_thread() {
    let sink = NullSink::start(SinkOptions {
        own_thread: true,
        error_every: 2,
        ..SinkOptions::default()
    })
    .await
    .unwrap();
    let client = Client::connect(&sink.endpoint(), opts(2)).await.unwrap();
    let bodies: Vec<Bytes> = (0..100)
        .map(|i| send_raw_transaction_body(i, "0x02"))
        .collect();
    let b = blast(&client, &bodies, 4).await;
    assert_eq!((b.ok, b.err), (50, 50));
    assert_eq!(sink.requests(), 100);
    let ep = sink.endpoint();
    sink.stop().await;
    // Stopped means closed: new connections are refused.
    let e = Client::connect(&ep, opts(1)).await.unwrap_err();
    assert_eq!(e.class(), ErrorClass::Connection, "{e}");

    // Dropping without stop() shuts the thread down too.
    let sink = NullSink::start(SinkOptions {
        own_thread: true,
        ..SinkOptions::default()
    })
    .await
    .unwrap();
    drop(sink);
}
