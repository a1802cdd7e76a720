//! dyno list's runtimes and clients, and dyno setup's refusal to run the current folder's scripts.

use super::*;

/// `dyno list` with a cache of its own: every adapter runtime's and every
/// client's implementations, each marked; `--impl` and `--installed`
/// filter. An install is faked by a `run` script (without the digest
/// `dyno setup` records, so it reads as out of date, which still runs).
#[test]
pub(crate) fn list_shows_every_runtime_and_client_marked_installed_or_not() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let list = |args: &[&str]| {
        let o = Command::new(bin())
            .env("DYNO_NO_STORE", "1")
            .env("DYNO_CACHE", &cache)
            .env("DYNO_SPECS", repo().join("specs"))
            .env("DYNO_VECTORS", repo().join("vectors"))
            .env_remove("DYNO_ADAPTERS")
            .current_dir(tmp.path())
            .args(["list"])
            .args(args)
            .output()
            .expect("dyno runs");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        (text(&o.stdout), text(&o.stderr))
    };
    let (all, err) = list(&[]);
    let row = |out: &str, id: &str, imp: &str| -> Option<String> {
        out.lines()
            .find(|l| {
                let mut w = l.split_whitespace();
                w.next() == Some(id) && w.next() == Some(imp)
            })
            .map(String::from)
    };
    // Each adapter runtime beside Rust's, from its offers.json.
    let recover = "crypto/secp256k1-recover/valid";
    for (id, imp, runtime) in [
        (recover, "geth", "go"),
        ("pow/hashimoto-light/epoch0", "core-geth", "go-etc"),
        (recover, "web3j", "java"),
        (recover, "noble", "node"),
        (recover, "coincurve", "python"),
    ] {
        let r = row(&all, id, imp).unwrap_or_else(|| panic!("no {imp} row in:\n{all}"));
        assert!(r.contains(&format!(" {runtime} ")), "{r}");
        assert!(
            r.ends_with(&format!("not installed: dyno setup {runtime}")),
            "{r}"
        );
    }
    let r = row(&all, "crypto/secp256k1-recover/valid", "libsecp256k1").unwrap();
    assert!(r.ends_with("built in"), "{r}");
    // Each client, after the ids.
    for name in [
        "geth",
        "ethereumjs",
        "ethrex",
        "revm",
        "anvil",
        "hardhat",
        "mosquitto",
    ] {
        let line = all
            .lines()
            .skip_while(|l| !l.starts_with("client "))
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no client {name} in:\n{all}"));
        let want = if name == "revm" {
            "built in".to_string()
        } else {
            format!("not installed: dyno setup {name}")
        };
        assert!(line.ends_with(&want), "{line}");
    }
    assert!(
        err.contains("runtime(s) (go, go-etc, java, node, python, rust)"),
        "{err}"
    );

    // --impl go: the Go adapter's rows only, and no client.
    let (go, _) = list(&["--impl", "go"]);
    assert!(
        row(&go, "crypto/secp256k1-recover/valid", "geth").is_some(),
        "{go}"
    );
    assert!(row(&go, "crypto/secp256k1-recover/valid", "libsecp256k1").is_none());
    assert!(!go.contains("client "), "{go}");
    assert!(go.lines().skip(1).all(|l| l.contains(" go ")), "{go}");

    // A faked install of python and of mosquitto: --installed keeps them
    // and what is built in, and drops the rest.
    for home in ["adapters/python", "nodes/mosquitto"] {
        std::fs::create_dir_all(cache.join(home)).unwrap();
        std::fs::write(cache.join(home).join("run"), "#!/bin/sh\nexit 1\n").unwrap();
    }
    let (now, _) = list(&["--installed"]);
    let r = row(&now, "crypto/secp256k1-recover/valid", "coincurve").unwrap();
    assert!(r.ends_with("out of date: dyno setup python"), "{r}");
    assert!(row(&now, "crypto/secp256k1-recover/valid", "libsecp256k1").is_some());
    assert!(
        row(&now, "crypto/secp256k1-recover/valid", "geth").is_none(),
        "{now}"
    );
    assert!(!now.contains("not installed"), "{now}");
    let clients: Vec<&str> = now
        .lines()
        .skip_while(|l| !l.starts_with("client "))
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(clients, ["revm", "mosquitto"], "{now}");

    // A filter lists ids only.
    let (hash, _) = list(&["hash/keccak256/32B"]);
    assert!(!hash.contains("client "), "{hash}");
    assert!(hash.contains("tiny-keccak *"), "{hash}");
}

/// `dyno setup` runs the repository's set-up scripts, never those of the
/// folder it runs in: a planted `nodes/geth/setup` (and `adapters/go/setup`)
/// in the current folder is not run. The repository's geth set-up finds no
/// Go on this PATH and is skipped, so the test builds nothing.
#[test]
pub(crate) fn setup_never_runs_the_current_folders_scripts() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let marker = tmp.path().join("planted-ran");
    for script in ["nodes/geth/setup", "adapters/go/setup"] {
        let path = tmp.path().join(script);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            format!("#!/bin/sh\necho ran >> {}\n", marker.display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A PATH with a shell and nothing to build with.
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    for tool in ["bash", "env", "dirname", "sh"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("no {tool} in /usr/bin or /bin"));
        std::os::unix::fs::symlink(found, bin_dir.join(tool)).unwrap();
    }
    let o = Command::new(bin())
        .args(["setup", "geth"])
        .current_dir(tmp.path())
        .env("PATH", &bin_dir)
        .env("DYNO_CACHE", tmp.path().join("cache"))
        .env_remove("DYNO_NODES")
        .env_remove("DYNO_ADAPTER_ROOT")
        .output()
        .unwrap();
    let stderr = text(&o.stderr);
    assert!(
        !marker.exists(),
        "the current folder's script ran:\n{stderr}"
    );
    assert!(stderr.contains("geth: skipped: go not found"), "{stderr}");
    assert_eq!(o.status.code(), Some(0), "{stderr}");
}
