//! What a second interrupt leaves behind (its own process: `kill_all`
//! kills every group this process started).

use dyno_process::group::running;
use std::time::Duration;

use dyno_node::LocalNode;

#[test]
fn kill_all_stops_the_client_and_removes_its_secret_and_data() {
    // A client that ignores SIGTERM and writes into its data directory.
    let (node, _port) = LocalNode::start_engine_cmd(
        "sh -c 'trap \"\" TERM; while :; do date >> {datadir}/log; sleep 0.05; done'",
        "{}",
        &[1u8; 32],
    )
    .unwrap();
    let folder = node.folder().unwrap().to_path_buf();
    let pid = node.pid().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert!(folder.join("jwt.hex").exists() && running(pid));
    // What the second Ctrl-C does before exit(130): no destructor runs.
    dyno_process::group::kill_all();
    std::thread::sleep(Duration::from_millis(200));
    assert!(!running(pid), "the client outlived kill_all");
    assert!(
        !folder.exists(),
        "the secret and the data outlived kill_all"
    );
    std::mem::forget(node);
}
