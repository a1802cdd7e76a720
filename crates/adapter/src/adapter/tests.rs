use super::*;

fn fake(dir: &Path, runtime: &str, setup: &str) -> Adapter {
    let a = dir.join("adapters").join(runtime);
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(a.join("setup"), setup).unwrap();
    std::fs::write(a.join("main.txt"), "v1").unwrap();
    discover(&dir.join("adapters"), &dir.join("cache"))
        .into_iter()
        .find(|x| x.runtime == runtime)
        .unwrap()
}

/// `setup` had no time limit: one that hangs (here behind a child of
/// its own, holding the output open) is stopped with what it started.
#[test]
fn a_setup_past_its_limit_is_stopped_with_what_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let a = fake(
        dir.path(),
        "slow",
        &format!(
            "echo building >&2\n(sleep 300) &\necho $! > {}\nwait\n",
            pidfile.display()
        ),
    );
    let t = Instant::now();
    let e = a.setup_within(Duration::from_secs(1), |_| {}).unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    let msg = e.to_string();
    assert!(
        msg.contains("did not finish within 1s") && msg.contains("building"),
        "{msg}"
    );
    let pid = std::fs::read_to_string(&pidfile).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
    assert!(
        stat.is_err() || stat.unwrap().contains(") Z"),
        "setup's child outlived it"
    );
}

#[test]
fn setup_installs_records_the_digest_and_notices_changes() {
    let t = tempfile::tempdir().unwrap();
    let a = fake(
        t.path(),
        "toy",
        "echo building >&2\nprintf '#!/bin/sh\\nexit 0\\n' > \"$1/run\"\nchmod +x \"$1/run\"\n",
    );
    assert!(!a.installed());
    let mut lines = Vec::new();
    a.setup(|l| lines.push(l.to_string())).unwrap();
    assert_eq!(lines, ["building"]);
    assert!(a.installed());
    assert!(!a.stale());
    std::fs::write(a.dir.join("main.txt"), "v2").unwrap();
    assert!(a.stale());
    // build products do not count
    a.setup(|_| {}).unwrap();
    std::fs::create_dir_all(a.dir.join("node_modules")).unwrap();
    std::fs::write(a.dir.join("node_modules/x.js"), "1").unwrap();
    assert!(!a.stale());
}

#[test]
fn shared_folders_count_in_the_digest_wherever_the_checkout_is() {
    let t = tempfile::tempdir().unwrap();
    let installs = "printf '#!/bin/sh\\nexit 0\\n' > \"$1/run\"\nchmod +x \"$1/run\"\n";
    let a = fake(t.path(), "toy", installs);
    let lib = t.path().join("adapters/toy-lib");
    std::fs::create_dir_all(lib.join("sub")).unwrap();
    std::fs::write(lib.join("sub/lib.txt"), "v1").unwrap();
    let alone = a.source_digest().unwrap();
    assert!(a.shared_dirs().unwrap().is_empty());

    std::fs::write(a.dir.join(SHARED), "# built with\n\n../toy-lib/\n").unwrap();
    assert_eq!(a.shared_dirs().unwrap(), ["../toy-lib"]);
    let with = a.source_digest().unwrap();
    assert_ne!(with, alone);
    a.setup(|_| {}).unwrap();
    assert!(!a.stale());
    // editing, adding or removing a shared file makes the worker stale
    std::fs::write(lib.join("sub/lib.txt"), "v2").unwrap();
    assert!(a.stale());
    std::fs::write(lib.join("sub/lib.txt"), "v1").unwrap();
    assert!(!a.stale());
    std::fs::write(lib.join("new.txt"), "").unwrap();
    assert!(a.stale());
    std::fs::remove_file(lib.join("new.txt")).unwrap();
    assert!(!a.stale());
    // build products in a shared folder do not count
    std::fs::create_dir_all(lib.join("target")).unwrap();
    std::fs::write(lib.join("target/out"), "1").unwrap();
    assert!(!a.stale());

    // the same files elsewhere give the same digest
    let u = tempfile::tempdir().unwrap();
    let b = fake(u.path(), "toy", installs);
    std::fs::write(b.dir.join(SHARED), "# built with\n\n../toy-lib/\n").unwrap();
    let lib2 = u.path().join("adapters/toy-lib");
    std::fs::create_dir_all(lib2.join("sub")).unwrap();
    std::fs::write(lib2.join("sub/lib.txt"), "v1").unwrap();
    assert_eq!(b.source_digest().unwrap(), with);
    // a file moved between the adapter and its shared folder is a change
    std::fs::remove_file(lib2.join("sub/lib.txt")).unwrap();
    std::fs::create_dir_all(b.dir.join("sub")).unwrap();
    std::fs::write(b.dir.join("sub/lib.txt"), "v1").unwrap();
    assert_ne!(b.source_digest().unwrap(), with);

    // a listed folder that is missing: no digest, so always stale
    std::fs::write(a.dir.join(SHARED), "../gone\n").unwrap();
    assert!(a.source_digest().is_err());
    assert!(a.stale());
}

#[test]
fn exit_3_means_the_runtime_is_missing_with_its_reason() {
    let t = tempfile::tempdir().unwrap();
    let a = fake(
        t.path(),
        "toy",
        "echo 'toyc not found; install it' >&2\nexit 3\n",
    );
    match a.setup(|_| {}).unwrap_err() {
        SetupError::RuntimeMissing { runtime, reason } => {
            assert_eq!(runtime, "toy");
            assert_eq!(reason, "toyc not found; install it");
        }
        other => panic!("{other}"),
    }
    let b = fake(
        t.path(),
        "bad",
        "echo compiling\necho 'error: x' >&2\nexit 1\n",
    );
    let e = b.setup(|_| {}).unwrap_err().to_string();
    assert!(e.contains("setup failed") && e.contains("error: x"), "{e}");
    // a build tool's first error line, not its closing advice; no colour codes
    let c = fake(
        t.path(),
        "maven",
        "printf '\\033[0m[INFO] ok\\n[ERROR] Foo.scala:8: unclosed comment\\n[ERROR] -> [Help 1]\\n\\033[0m\\033[0m\\n' >&2\nexit 1\n",
    );
    let e = c.setup(|_| {}).unwrap_err().to_string();
    assert!(
        e.ends_with(": [ERROR] Foo.scala:8: unclosed comment"),
        "{e}"
    );
    assert!(matches!(
        b.start().unwrap_err(),
        WorkerError::NotInstalled { .. }
    ));
}

#[test]
fn an_external_folder_is_refused_with_what_to_fix() {
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("cache");
    let err = |dir: &Path| Adapter::external(dir, &cache).unwrap_err().to_string();
    let e = err(&t.path().join("nowhere"));
    assert!(
        e.starts_with("adapter folder ") && e.contains("nowhere"),
        "{e}"
    );
    std::fs::write(t.path().join("file"), "").unwrap();
    assert!(err(&t.path().join("file")).contains("not a folder"));
    let bare = t.path().join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    let e = err(&bare);
    assert!(e.contains("bare") && e.contains("no `setup` script"), "{e}");
    let odd = t.path().join("my adapter");
    std::fs::create_dir_all(&odd).unwrap();
    std::fs::write(odd.join("setup"), "").unwrap();
    assert!(err(&odd).contains("rename the folder"));

    // a good one: named by its folder, installed under external/,
    // in a home of its own per path
    let mine = t.path().join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("setup"), "").unwrap();
    let a = Adapter::external(&mine, &cache).unwrap();
    assert_eq!(a.runtime, "mine");
    assert!(a.external);
    assert!(a.home.starts_with(cache.join("adapters/external")));
    assert!(
        a.label()
            .contains(&*mine.canonicalize().unwrap().to_string_lossy())
    );
    let other = t.path().join("elsewhere/mine");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("setup"), "").unwrap();
    assert_ne!(Adapter::external(&other, &cache).unwrap().home, a.home);
}

#[test]
fn a_setup_that_leaves_no_runnable_run_fails_saying_what_to_fix() {
    let t = tempfile::tempdir().unwrap();
    let none = fake(t.path(), "none", "exit 0\n");
    let e = none.setup(|_| {}).unwrap_err().to_string();
    assert!(e.contains("must write HOME/run"), "{e}");
    let plain = fake(t.path(), "plain", "printf '#!/bin/sh\\n' > \"$1/run\"\n");
    let e = plain.setup(|_| {}).unwrap_err().to_string();
    assert!(
        e.contains("not executable") && e.contains("chmod +x"),
        "{e}"
    );
    // a run that lost its execute bit after setup: refused at start
    match plain.start().unwrap_err() {
        WorkerError::NotExecutable { path, .. } => assert_eq!(path, plain.run_script()),
        other => panic!("{other}"),
    }
}

#[test]
fn discover_finds_only_folders_with_a_setup_script() {
    let t = tempfile::tempdir().unwrap();
    fake(t.path(), "b", "exit 0");
    fake(t.path(), "a", "exit 0");
    std::fs::create_dir_all(t.path().join("adapters/testdata")).unwrap();
    let names: Vec<String> = discover(&t.path().join("adapters"), t.path())
        .into_iter()
        .map(|a| a.runtime)
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert!(discover(&t.path().join("nope"), t.path()).is_empty());
}
