//! The execution clients dyno drives: a name (`geth`, another geth build,
//! `ethereumjs`, `revm`) or a command line made into a [`ClientSpec`], and
//! `dyno client check`, the conformance run of one of them
//! ([`dyno_replay::conformance`]).

use std::time::Duration;

pub use dyno_evm::block::fork::Fork;
use dyno_replay::blocks;
use dyno_replay::client::{Builtin, Caches, ClientSpec};
use dyno_replay::conformance::{self, Report};

use crate::{Error, Lab, refuse};

/// The client a name or command line means; `flag` names the option in
/// messages (`--client`, `--against`), and has a `-cmd` twin
/// (`--client-cmd`) to point to unless it is `gas --blocks`' `--client`
/// ([`named`]).
pub fn spec(lab: &Lab, name: &str, cmd: Option<&String>, flag: &str) -> crate::Result<ClientSpec> {
    resolve(lab, name, cmd, flag, true)
}

/// The client a name means, for a flag with no `-cmd` twin (`dyno gas
/// --blocks --client`): its messages point to `dyno setup` only.
pub fn named(lab: &Lab, name: &str, flag: &str) -> crate::Result<ClientSpec> {
    resolve(lab, name, None, flag, false)
}

fn resolve(
    lab: &Lab,
    name: &str,
    cmd: Option<&String>,
    flag: &str,
    has_cmd: bool,
) -> crate::Result<ClientSpec> {
    if let Some(cmdline) = cmd {
        if cmdline.trim().is_empty() {
            refuse!(
                "{flag}-cmd is empty: give the client's command line, with {{datadir}}, {{genesis}}, {{jwt}} and {{authrpc_port}} in it"
            );
        }
        if !cmdline.contains("{authrpc_port}") || !cmdline.contains("{jwt}") {
            refuse!(
                "{flag}-cmd {cmdline:?}: it must put the Engine API on {{authrpc_port}} with the \
                 secret in {{jwt}}, or dyno cannot reach it (see docs/clients.md)"
            );
        }
        let mut known = cmdline.clone();
        for p in dyno_node::ENGINE_PLACEHOLDERS {
            known = known.replace(&format!("{{{p}}}"), "x");
        }
        if let Some(name) = dyno_node::unknown_placeholder(&known) {
            refuse!(
                "{flag}-cmd {cmdline:?}: {{{name}}} is no placeholder dyno fills in (it fills {}; see docs/clients.md)",
                dyno_node::ENGINE_PLACEHOLDERS
                    .iter()
                    .map(|p| format!("{{{p}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        return Ok(ClientSpec::Cmd {
            cmdline: cmdline.clone(),
        });
    }
    // `geth:bare`: the client with its result cache and prefetcher off.
    let (name, caches) = match name.strip_suffix(Caches::OFF_SUFFIX) {
        Some(client) => (client, Caches::Off),
        None => (name, Caches::Shipped),
    };
    if name == "revm" {
        if caches == Caches::Off {
            refuse!(
                "{flag} revm{}: revm in dyno's process has no result cache and no prefetcher, \
                 so `revm` is already the operation's own cost; name it `revm`",
                Caches::OFF_SUFFIX
            );
        }
        return Ok(ClientSpec::Revm);
    }
    // `geth`, another geth build with its own folder in nodes/
    // (`geth-1.17.7`), or EthereumJS, each installed by `dyno setup <name>`.
    let geth = name == "geth" || (name.starts_with("geth-") && lab.paths.nodes.join(name).is_dir());
    let builtin = Builtin::parse(name);
    if !geth && builtin.is_none() {
        let other = if has_cmd {
            format!("; start any other Engine-API client with {flag}-cmd")
        } else {
            String::new()
        };
        refuse!(
            "{flag} {name:?}: the clients dyno installs are {} and revm (dyno's own, \
             in-process){other}",
            names(lab).join(", ")
        );
    }
    if let (Caches::Off, Some(client)) = (caches, builtin)
        && client.caches_off().is_none()
    {
        refuse!(
            "{flag} {name}{}: {name} has no result cache or prefetcher to turn off, so `{name}` \
             is already the operation's own cost; name it `{name}` (docs/clients.md)",
            Caches::OFF_SUFFIX
        );
    }
    let home = lab.paths.cache.join("nodes").join(name);
    if !home.join("run").is_file() {
        let other = if has_cmd {
            format!(" (or give {flag}-cmd to start another client)")
        } else {
            String::new()
        };
        refuse!(
            "{flag} {name}: it is not installed in {}; run `dyno setup {name}`{other}",
            home.display()
        );
    }
    Ok(match builtin {
        Some(client) => ClientSpec::Builtin {
            client,
            home,
            caches,
        },
        None => ClientSpec::Geth { home, caches },
    })
}

/// The clients `nodes/` holds that dyno drives through the Engine API
/// (`ethereumjs`, `ethrex`, `geth`, `geth-1.17.7`, ...).
pub fn names(lab: &Lab) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(&lab.paths.nodes)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n == "geth" || n.starts_with("geth-") || Builtin::parse(n).is_some())
        .collect();
    names.sort();
    names
}

/// The fork to make blocks under for `specs`: `asked`, if every client
/// runs it, else the newest every one of them runs.
pub fn fork(specs: &[(String, ClientSpec)], asked: Option<Fork>) -> crate::Result<Fork> {
    let common = specs
        .iter()
        .map(|(_, s)| s.newest_fork())
        .min()
        .unwrap_or_default();
    match asked {
        None => Ok(common),
        Some(f) => {
            if let Some((name, s)) = specs.iter().find(|(_, s)| s.newest_fork() < f) {
                refuse!(
                    "--fork {f}: {name} runs up to {} only; give --fork {} (or leave it out)",
                    s.newest_fork(),
                    s.newest_fork()
                );
            }
            Ok(f)
        }
    }
}

/// What `dyno client check` is asked.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// An installed client's name, unless `cmd` is given.
    pub name: String,
    pub cmd: Option<String>,
    /// The fork of the genesis (default: the newest the client runs).
    pub fork: Option<Fork>,
    /// How long the client may take to answer after it starts.
    pub ready: Duration,
    /// How long one Engine-API call may take.
    pub call: Duration,
}

/// Run every check of `req`'s client, each line to `echo` as it is found.
pub fn check(lab: &Lab, req: &CheckRequest, echo: &mut dyn FnMut(&str)) -> crate::Result<Report> {
    let spec = spec(lab, &req.name, req.cmd.as_ref(), "--client")?;
    if spec == ClientSpec::Revm {
        refuse!(
            "dyno client check revm: revm runs inside dyno, with no Engine API to check; name a \
             client dyno starts ({}) or give --client-cmd",
            names(lab).join(", ")
        );
    }
    let name = spec.name().to_string();
    let fork = fork(&[(name, spec.clone())], req.fork)?;
    let contracts = dyno_evm::block::genesis::Contracts::load(&lab.paths.ctx())
        .map_err(|e| Error::Refused(format!("the check's blocks: {e}")))?;
    // One round of the 30M classes: block 1 empty, block 2 transfers.
    let set =
        blocks::make(&contracts, "30M", 0, 1, fork).map_err(|e| Error::Refused(e.to_string()))?;
    Ok(conformance::check(&spec, &set, req.ready, req.call, echo))
}
