//! What there is to run, for `dyno list`: every implementation of every id
//! the specs define (Rust's, built into dyno, and each adapter's, read from
//! its offers file, or from its worker's `hello` when an external adapter
//! has no file), and the clients and nodes dyno drives, each marked ready
//! or with the `dyno setup` command that installs it.

use dyno_adapter::{Adapter, Offers};
use dyno_report::catalog::{Listed, ListedClient, Status};

use crate::adapters::{Selection, setup_command};
use crate::{Lab, refuse};

/// What `dyno list` asks.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Only ids matching this (a group, a substring or a glob; several
    /// separated by commas).
    pub filter: Option<String>,
    /// Only these implementations or runtimes, as `--impl` takes them
    /// (`go`, `geth,k256`, `all`); absent: every one.
    pub impls: Option<Vec<String>>,
    /// Only what runs now, without a `dyno setup`.
    pub installed: bool,
}

/// Everything there is to run.
#[derive(Debug, Clone)]
pub struct Inventory {
    /// One row per id and implementation, the spec's order, each id's
    /// Rust implementations first.
    pub rows: Vec<Listed>,
    /// The clients and nodes (without a filter; a filter selects ids).
    pub clients: Vec<ListedClient>,
    /// What could not be listed, one sentence each (an external adapter
    /// with no offers file that is not installed).
    pub notes: Vec<String>,
}

/// One adapter and what it offers, if that is known.
struct Known {
    adapter: Adapter,
    offers: Option<Offers>,
    status: Status,
}

/// The inventory `req` asks for.
pub fn list(lab: &Lab, req: &Request) -> crate::Result<Inventory> {
    let paths = &lab.paths;
    let (specs, catalog) = crate::suites::load_specs(paths)?;
    if let Some(filter) = &req.filter {
        dyno_spec::check_filter(&specs, filter)?;
    }
    let entries = dyno_spec::plan(&specs, req.filter.as_deref().or(Some("*")));
    if entries.is_empty() {
        refuse!(
            "no benchmark id matches {:?} (try `dyno list` for all ids)",
            req.filter.as_deref().unwrap_or("")
        );
    }
    let sel = req.impls.as_deref().map(|i| Selection::parse(Some(i)));
    let wants = |runtime: &str, implementation: &str| {
        sel.as_ref()
            .is_none_or(|s| s.wants(runtime, implementation))
    };
    let mut notes = Vec::new();
    let adapters = known_adapters(lab, &mut notes)?;
    // A note only of an adapter the selection could want.
    notes.retain(|(runtime, _)| wants(runtime, runtime));
    let notes: Vec<String> = notes.into_iter().map(|(_, n)| n).collect();
    let exported = crate::cases::ids();
    let mut rows = Vec::new();
    let mut done_ids = std::collections::BTreeSet::new();
    for (k, e) in entries.iter().enumerate() {
        let default = specs.iter().any(|s| s.path == e.spec && s.default);
        if wants("rust", &e.implementation) {
            rows.push(Listed {
                version: catalog
                    .iter()
                    .find(|d| d.id() == e.workload && d.implementation == e.implementation)
                    .map_or("?", |d| d.version)
                    .to_string(),
                target: e.target.map(|t| (t.stat.to_string(), t.limit_ns)),
                default,
                id: e.id.clone(),
                implementation: e.implementation.clone(),
                runtime: "rust".into(),
                baseline: e.baseline,
                threshold: e.threshold,
                status: Status::BuiltIn,
            });
        }
        // The adapters' rows once per id, after its last Rust row.
        let last_of_id = entries.get(k + 1).is_none_or(|n| n.id != e.id);
        if !last_of_id || !done_ids.insert(e.id.clone()) || !exported.contains(&e.workload) {
            continue;
        }
        for a in &adapters {
            let Some(offers) = &a.offers else { continue };
            for o in offers.implementations_of(&e.workload) {
                if !wants(&a.adapter.runtime, &o.implementation) {
                    continue;
                }
                rows.push(Listed {
                    id: e.id.clone(),
                    implementation: o.implementation.clone(),
                    runtime: a.adapter.runtime.clone(),
                    baseline: false,
                    version: o
                        .library
                        .as_ref()
                        .map(|l| {
                            offers
                                .libraries
                                .get(l)
                                .cloned()
                                .unwrap_or_else(|| format!("{l} (runtime)"))
                        })
                        .unwrap_or_else(|| offers.adapter.clone()),
                    target: e.target.map(|t| (t.stat.to_string(), t.limit_ns)),
                    threshold: e.threshold,
                    default,
                    status: a.status.clone(),
                });
            }
        }
    }
    if req.installed {
        rows.retain(|r| r.status.ready());
    }
    let mut clients = if req.filter.is_none() {
        clients(lab)
    } else {
        Vec::new()
    };
    if let Some(s) = &sel {
        clients.retain(|c| s.wants(&c.name, &c.name));
    }
    if req.installed {
        clients.retain(|c| c.status.ready());
    }
    Ok(Inventory {
        rows,
        clients,
        notes,
    })
}

/// Every adapter with what it offers: its offers file, or for an external
/// adapter without one, its installed worker's hello.
fn known_adapters(lab: &Lab, notes: &mut Vec<(String, String)>) -> crate::Result<Vec<Known>> {
    let mut out = Vec::new();
    for a in crate::adapters::adapters(&lab.paths)? {
        let status = adapter_status(&a);
        let offers = match Offers::read(&a.dir) {
            Ok(Some(o)) => Some(o),
            Ok(None) if a.installed() => match a.start() {
                Ok(w) => Some(Offers::of(w.hello())),
                Err(e) => {
                    notes.push((a.runtime.clone(), format!(
                        "adapter {} ({}): its worker did not start, so its implementations are not listed: {}",
                        a.runtime,
                        a.dir.display(),
                        dyno_report::one_line(&e.to_string())
                    )));
                    None
                }
            },
            Ok(None) => {
                notes.push((a.runtime.clone(), format!(
                    "adapter {} ({}): not installed and no {}, so its implementations are not listed; `{}` installs it",
                    a.runtime,
                    a.dir.display(),
                    dyno_adapter::OFFERS_FILE,
                    setup_command(&a)
                )));
                None
            }
            Err(e) => refuse!("adapter {}: {e}", a.runtime),
        };
        out.push(Known {
            adapter: a,
            offers,
            status,
        });
    }
    Ok(out)
}

fn adapter_status(a: &Adapter) -> Status {
    if !a.installed() {
        Status::Missing(setup_command(a))
    } else if a.stale() {
        Status::Stale(setup_command(a))
    } else {
        Status::Installed
    }
}

/// The clients and nodes dyno drives, each with what uses it: the
/// Engine-API clients of `nodes/`, revm in dyno's own process, the dev
/// nodes of `dyno load`, and the MQTT broker of a fleet.
pub fn clients(lab: &Lab) -> Vec<ListedClient> {
    use dyno_replay::client::Builtin;
    let homes = crate::adapters::nodes(&lab.paths);
    let status = |name: &str| {
        let Some(a) = homes.iter().find(|a| a.runtime == name) else {
            return Status::Missing(format!("dyno setup {name}"));
        };
        adapter_status(a)
    };
    let version = |name: &str| {
        std::fs::read_to_string(lab.paths.cache.join("nodes").join(name).join("version"))
            .ok()
            .map(|v| dyno_report::one_line(v.trim()))
            .filter(|v| !v.is_empty())
    };
    let mut out = Vec::new();
    for name in crate::client::names(lab) {
        let fork = match Builtin::parse(&name) {
            Some(b) => b.newest_fork(),
            None => crate::client::Fork::Osaka,
        };
        let mut uses = vec![
            format!("replay --client {name}"),
            format!("client check {name}"),
        ];
        if name.starts_with("geth-") {
            uses = vec![format!("replay --against {name}")];
        } else if fork >= crate::client::Fork::Osaka {
            uses.push(format!("gas --blocks --client {name}"));
        }
        if dyno_node::Kind::parse(&name).is_some() {
            uses.push(format!("load --node {name}"));
        }
        out.push(ListedClient {
            version: version(&name),
            fork: Some(fork.to_string()),
            status: status(&name),
            name,
            uses,
        });
    }
    out.push(ListedClient {
        name: "revm".into(),
        uses: vec![
            "replay --client revm".into(),
            "gas --blocks --client revm".into(),
        ],
        fork: Some(crate::client::Fork::Osaka.to_string()),
        version: Some(dyno_evm::vm::REVM_VERSION.to_string()),
        status: Status::BuiltIn,
    });
    for kind in dyno_node::Kind::ALL {
        let name = kind.as_str();
        if out.iter().any(|c| c.name == name) {
            continue;
        }
        out.push(ListedClient {
            name: name.into(),
            uses: vec![format!("load --node {name}")],
            fork: None,
            version: version(name),
            status: status(name),
        });
    }
    out.push(ListedClient {
        name: "mosquitto".into(),
        uses: vec!["load --fleet (the MQTT broker)".into()],
        fork: None,
        version: None,
        status: status("mosquitto"),
    });
    out
}
