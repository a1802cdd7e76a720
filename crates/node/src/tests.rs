use super::*;
use std::time::Instant;

fn fake_home(script: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let run = home.path().join("run");
    std::fs::write(&run, format!("#!/bin/sh\n{script}\n")).unwrap();
    let mut perm = std::fs::metadata(&run).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&run, perm).unwrap();
    std::fs::write(home.path().join("version"), "fake 1.0\n").unwrap();
    home
}

#[test]
fn ports_are_drawn_below_the_ephemeral_range_and_never_twice() {
    assert_eq!(ports::below_ephemeral(32_768), (20_000, 32_768));
    assert_eq!(ports::below_ephemeral(49_152), (20_000, 49_152));
    // Too few ports below a low range: the kernel picks.
    assert_eq!(ports::below_ephemeral(21_000), (0, 0));
    assert_eq!(ports::below_ephemeral(1_024), (0, 0));
    for _ in 0..1000 {
        let p = ports::draw(20_000, 20_010);
        assert!((20_000..20_010).contains(&p), "{p}");
    }
    // The same port is never given out twice in one process.
    assert!(ports::claim(1));
    assert!(!ports::claim(1));
    let (low, high) = ports::below_ephemeral(ports::ephemeral_start());
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let p = free_port().unwrap();
        assert!(seen.insert(p), "{p} given twice");
        if high > low {
            assert!((low..high).contains(&p), "{p} outside [{low}, {high})");
        }
        // And it is free: it binds.
        TcpListener::bind(("127.0.0.1", p)).unwrap();
    }
}

#[test]
fn plain_words_and_misspelt_placeholders() {
    assert!(shell_plain("/tmp/dyno-client-AbC123/data"));
    for bad in [
        "/tmp/a b",
        "/tmp/x;touch y",
        "/tmp/$(id)",
        "/tmp/'q'",
        "",
        "/tmp/*",
    ] {
        assert!(!shell_plain(bad), "{bad:?}");
    }
    assert_eq!(
        unknown_placeholder("geth --datadir {datdir}").as_deref(),
        Some("datdir")
    );
    // A shell's own ${VAR}, JSON and a lone brace are not placeholders.
    assert_eq!(unknown_placeholder("echo ${HOME} '{\"a\":1}' {"), None);
    assert_eq!(unknown_placeholder("run --port 8551"), None);
}

#[test]
fn a_taken_port_is_told_from_other_exits() {
    let exited = |tail: &str| NodeError::Exited {
        name: "geth".into(),
        status: "exit status: 1".into(),
        when: "starting".into(),
        tail: tail.into(),
    };
    for tail in [
        "Fatal: Error starting protocol stack: listen tcp 127.0.0.1:36037: bind: address already in use",
        "Error: listen EADDRINUSE: address already in use 127.0.0.1:8551",
        "Address in use (os error 98)",
    ] {
        assert!(exited(tail).port_taken(), "{tail}");
    }
    assert!(!exited("Fatal: invalid genesis").port_taken());
    let spawn = NodeError::Spawn {
        command: "geth".into(),
        source: std::io::Error::from(std::io::ErrorKind::AddrInUse),
    };
    assert!(!spawn.port_taken(), "only a node's own exit says so");
}

#[test]
fn a_missing_node_says_how_to_install_it() {
    let e = LocalNode::start(Kind::Anvil, Path::new("/nonexistent"), 1).unwrap_err();
    assert!(e.to_string().contains("dyno setup anvil"), "{e}");
}

#[test]
fn stop_removes_the_data_and_ends_the_process_group() {
    // A node that ignores SIGTERM's default? No: sleeps, with a child.
    let home = fake_home("echo started; sleep 300 & exec sleep 300");
    let mut node = LocalNode::start(Kind::Geth, home.path(), 1).unwrap();
    assert_eq!(node.version.as_deref(), Some("fake 1.0"));
    assert!(node.url.starts_with("http://127.0.0.1:"));
    let data = node.datadir.as_ref().unwrap().path().to_path_buf();
    assert!(data.exists());
    node.check_alive("starting").unwrap();
    let started = Instant::now();
    node.stop(Duration::from_secs(5));
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "SIGTERM ends sleep at once"
    );
    assert!(!data.exists());
    node.stop(Duration::from_secs(1)); // idempotent
}

#[test]
fn the_engine_secret_is_its_owners_alone_and_goes_with_the_node() {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let (mut node, _port) = LocalNode::start_engine_cmd("sleep 300", "{}", &[7u8; 32]).unwrap();
    let folder = node.folder().unwrap().to_path_buf();
    assert_eq!(mode(&folder), 0o700, "the folder of the secret");
    let jwt = folder.join("jwt.hex");
    assert_eq!(mode(&jwt), 0o600, "the secret");
    assert_eq!(std::fs::read_to_string(&jwt).unwrap(), "07".repeat(32));
    node.stop(Duration::from_secs(2));
    assert!(!folder.exists(), "the secret outlived the node");
}

#[test]
fn the_engine_geth_takes_peers_from_loopback_only() {
    let home = fake_home("[ \"$1\" = init ] && exit 0; exec sleep 300");
    let (mut node, _) = LocalNode::start_geth_engine(home.path(), "{}", &[0; 32], &[]).unwrap();
    let at = node.command.iter().position(|a| a == "--netrestrict");
    assert_eq!(
        at.map(|i| node.command[i + 1].as_str()),
        Some("127.0.0.0/8"),
        "{:?}",
        node.command
    );
    node.stop(Duration::from_secs(2));
}

#[test]
fn an_exited_node_reports_its_last_output() {
    let home = fake_home("echo 'Fatal: flag provided but not defined: -bogus' >&2; exit 1");
    let mut node = LocalNode::start(Kind::Geth, home.path(), 1).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let err = loop {
        if let Err(e) = node.check_alive("waiting for its RPC") {
            break e;
        }
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(20));
    };
    let msg = err.to_string();
    assert!(
        msg.contains("geth exited") && msg.contains("flag provided but not defined"),
        "{msg}"
    );
}
