//! Hostile Engine-API clients: one that never answers, one that answers
//! garbage, dribbles, never ends a header line or announces a body of a
//! terabyte. Each call ends within its limit with a clear error and
//! bounded memory; a client process that never becomes ready is stopped
//! with its data directory and secret.

use dyno_process::group::running;
use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use dyno_replay::client::{ClientError, ClientSpec};
use dyno_replay::engine::Engine;

/// A fake client on loopback answering each connection with `serve`
/// once it has read the request head; its port.
fn fake(serve: fn(TcpStream)) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut req = Vec::new();
                let mut b = [0u8; 1];
                while !req.ends_with(b"\r\n\r\n") && s.read(&mut b).is_ok_and(|n| n == 1) {
                    req.push(b[0]);
                }
                serve(s)
            });
        }
    });
    port
}

/// A call to the fake with a 1 s limit: its error, and how long it took.
fn call(serve: fn(TcpStream)) -> (String, Duration) {
    let mut e = Engine::connect(fake(serve), [7; 32], Duration::from_secs(1)).unwrap();
    let t = Instant::now();
    let err = e
        .call("engine_exchangeCapabilities", serde_json::json!([[]]))
        .unwrap_err();
    (err.to_string(), t.elapsed())
}

#[test]
fn a_client_that_never_answers_fails_the_call_at_its_limit() {
    let (e, took) = call(|s| {
        std::thread::sleep(Duration::from_secs(30));
        drop(s);
    });
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(e.contains("127.0.0.1"), "{e}");
}

/// One byte every 100 ms: each read succeeds, so only a deadline on the
/// whole call ends it (the old client waited per read, for ever).
#[test]
fn a_client_that_dribbles_fails_the_call_at_its_limit() {
    let (e, took) = call(|mut s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\n");
        while s.write_all(b"X").is_ok() {
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(e.contains("time limit"), "{e}");
}

#[test]
fn garbage_is_a_clear_protocol_error() {
    let (e, _) = call(|mut s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nnot json!");
    });
    assert!(
        e.contains("something unreadable") && e.contains("not json!"),
        "{e}"
    );
}

/// A terabyte announced: the old client allocated it (and aborted).
#[test]
fn a_huge_announced_body_is_refused_before_it_is_read() {
    let (e, _) = call(|mut s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n{");
        std::thread::sleep(Duration::from_secs(5));
    });
    assert!(e.contains("more than 16 MiB"), "{e}");
}

#[test]
fn an_endless_header_line_is_refused_at_the_bound() {
    let (e, _) = call(|mut s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nX-Endless: ");
        let block = vec![b'a'; 64 * 1024];
        while s.write_all(&block).is_ok() {}
    });
    assert!(e.contains("header line of more than"), "{e}");
}

/// A client process that listens and never answers: the start gives up
/// at its limit, saying so, and neither the process nor its folder (with
/// the JWT secret) is left.
#[test]
fn a_client_that_never_becomes_ready_is_stopped_with_its_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let note = tmp.path().join("client");
    let silent = "import socket,sys,time\n\
                  s=socket.socket();s.bind(('127.0.0.1',int(sys.argv[1])));s.listen(8)\n\
                  held=[]\n\
                  while True: held.append(s.accept())";
    let script = tmp.path().join("silent.py");
    std::fs::write(&script, silent).unwrap();
    let spec = ClientSpec::Cmd {
        cmdline: format!(
            "sh -c 'echo $$ {{datadir}} {{jwt}} > {}; exec python3 {} {{authrpc_port}}'",
            note.display(),
            script.display()
        ),
    };
    let t = Instant::now();
    let e = spec
        .start("{}", Duration::from_secs(2), Duration::from_secs(1))
        .expect_err("it never answers");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert!(matches!(e, ClientError::NotReady { .. }), "{e}");
    assert!(e.to_string().contains("did not answer within 2s"), "{e}");
    let text = std::fs::read_to_string(&note).unwrap();
    let mut parts = text.split_whitespace();
    let pid: u32 = parts.next().unwrap().parse().unwrap();
    let (datadir, jwt) = (parts.next().unwrap(), parts.next().unwrap());
    std::thread::sleep(Duration::from_millis(200));
    assert!(!running(pid), "the client outlived its failed start");
    assert!(
        !std::path::Path::new(datadir).exists() && !std::path::Path::new(jwt).exists(),
        "its folder or secret was left"
    );
}

/// VALID, but for another block: the block was not validated, and the
/// call fails as a wrong answer (the old client took any VALID).
#[test]
fn valid_for_another_block_is_not_valid() {
    let answer = |latest: String| -> u16 {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for mut s in l.incoming().flatten() {
                let mut req = Vec::new();
                let mut b = [0u8; 1];
                while !req.ends_with(b"\r\n\r\n") && s.read(&mut b).is_ok_and(|n| n == 1) {
                    req.push(b[0]);
                }
                // Read the request's body too: a socket closed with bytes
                // unread is reset, and the reset can beat the answer.
                let head = String::from_utf8_lossy(&req).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .unwrap_or(0);
                let _ = s.read_exact(&mut vec![0; length]);
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":1,"result":{{"status":"VALID","latestValidHash":{latest},"validationError":null}}}}"#,
                    latest = latest
                );
                let _ = write!(
                    s,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        port
    };
    let block = format!("0x{}", "ab".repeat(32));
    let params =
        serde_json::json!([{ "blockHash": block }, [], format!("0x{}", "00".repeat(32)), []]);
    let send = |latest: String| {
        let mut e = Engine::connect(answer(latest), [7; 32], Duration::from_secs(2)).unwrap();
        e.new_payload(params.clone())
    };
    let err = send(format!("\"0x{}\"", "cd".repeat(32)))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("latestValidHash") && err.contains("cdcd"),
        "{err}"
    );
    let err = send("null".into()).unwrap_err().to_string();
    assert!(err.contains("missing"), "{err}");
    send(format!("\"0x{}\"", "AB".repeat(32)))
        .expect("the block's own hash, in any case, is VALID");
}
