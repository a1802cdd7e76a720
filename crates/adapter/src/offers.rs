//! The offers file, `offers.json` in an adapter's folder: what its worker
//! offers, as its `hello` says it (the adapter, its libraries, its exact
//! `(id, implementation)` pairs and its patterns), checked in beside the
//! sources. So `dyno list` names an adapter's implementations before it is
//! installed, and without starting a worker; `dyno adapter check` fails
//! when the file and the worker's `hello` disagree, and `--write-offers`
//! writes it from the worker. It is not a source: it does not count in
//! [`crate::Adapter::source_digest`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dyno_protocol::{Hello, Offer};
use serde::{Deserialize, Serialize};

/// The file's name in an adapter's folder.
pub const OFFERS_FILE: &str = "offers.json";

/// Libraries a runtime brings itself, whose versions are the machine's, not
/// an adapter's pin: Node's built-in OpenSSL (`node:crypto`) and the
/// OpenSSL CPython's `hashlib` links. Left out of the file, as is any
/// library whose version is the runtime's own (Go's `std`).
const MACHINE_LIBRARIES: [&str; 2] = ["node:crypto", "openssl (hashlib)"];

/// What an adapter's worker offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Offers {
    /// The adapter's name and version (`dyno-adapter-go 0.1.0`).
    pub adapter: String,
    /// Library name → version, as pinned; not the runtime's own standard
    /// library (a library whose version is the runtime's, as Go's `std`),
    /// which is the machine's, not the adapter's.
    #[serde(default)]
    pub libraries: BTreeMap<String, String>,
    /// Exact pairs, sorted.
    #[serde(default)]
    pub benchmarks: Vec<Offer>,
    /// Families offered by pattern, sorted.
    #[serde(default)]
    pub patterns: Vec<Offer>,
}

/// Why an offers file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum OffersError {
    #[error("{path}: {source} (rewrite it with `dyno adapter check --write-offers DIR`)")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path}, line {line}: {message} (rewrite it with `dyno adapter check --write-offers DIR`)"
    )]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl Offers {
    /// What `hello` offers, sorted as the file keeps it, without what
    /// depends on the machine (the runtime's version and flags, its clock).
    pub fn of(hello: &Hello) -> Self {
        let mut benchmarks = hello.benchmarks.clone();
        let mut patterns = hello.patterns.clone();
        benchmarks.sort();
        benchmarks.dedup();
        patterns.sort();
        patterns.dedup();
        Self {
            adapter: format!("{} {}", hello.adapter.name, hello.adapter.version),
            libraries: hello
                .libraries
                .iter()
                .filter(|(k, v)| {
                    **v != hello.runtime.version && !MACHINE_LIBRARIES.contains(&k.as_str())
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            benchmarks,
            patterns,
        }
    }

    /// The offers file in `dir`, if it has one.
    pub fn read(dir: &Path) -> Result<Option<Self>, OffersError> {
        let path = dir.join(OFFERS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => return Err(OffersError::Read { path, source }),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| OffersError::Parse {
                path,
                line: e.line(),
                message: e.to_string(),
            })
    }

    /// The file's text: pretty JSON, one offer a line.
    pub fn to_file_text(&self) -> String {
        let mut out = serde_json::to_string_pretty(self).expect("offers serialise");
        out.push('\n');
        out
    }

    /// The implementations offered for `id`, each once, exact pairs first.
    pub fn implementations_of(&self, id: &str) -> Vec<&Offer> {
        dyno_protocol::implementations_of(self.benchmarks.iter().chain(&self.patterns), id)
    }

    /// How `self` (the file) differs from `live` (the worker's hello), in
    /// one line each: what the worker offers that the file lacks, and the
    /// reverse; empty when they agree.
    pub fn differences(&self, live: &Offers) -> Vec<String> {
        let mut out = Vec::new();
        if self.adapter != live.adapter {
            out.push(format!(
                "the file says adapter {:?}, the worker {:?}",
                self.adapter, live.adapter
            ));
        }
        if self.libraries != live.libraries {
            out.push(format!(
                "the file's libraries {:?} are not the worker's {:?}",
                self.libraries, live.libraries
            ));
        }
        let pair = |o: &Offer| format!("{} {}", o.id, o.implementation);
        for (what, file, worker) in [
            ("benchmark", &self.benchmarks, &live.benchmarks),
            ("pattern", &self.patterns, &live.patterns),
        ] {
            let missing: Vec<String> = worker
                .iter()
                .filter(|o| !file.contains(o))
                .map(pair)
                .collect();
            let extra: Vec<String> = file
                .iter()
                .filter(|o| !worker.contains(o))
                .map(pair)
                .collect();
            if !missing.is_empty() {
                out.push(format!(
                    "the worker offers {} {what}(s) the file lacks: {}",
                    missing.len(),
                    abbreviated(&missing)
                ));
            }
            if !extra.is_empty() {
                out.push(format!(
                    "the file lists {} {what}(s) the worker does not offer: {}",
                    extra.len(),
                    abbreviated(&extra)
                ));
            }
        }
        out
    }
}

fn abbreviated(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    if items.len() > 5 {
        format!("{}, and {} more", shown.join(", "), items.len() - 5)
    } else {
        shown.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(id: &str, imp: &str) -> Offer {
        Offer {
            id: id.into(),
            implementation: imp.into(),
            library: None,
        }
    }

    fn offers() -> Offers {
        Offers {
            adapter: "dyno-adapter-x 0.1.0".into(),
            libraries: BTreeMap::from([("lib".into(), "1.0".into())]),
            benchmarks: vec![offer("hash/keccak256/32B", "x-keccak")],
            patterns: vec![offer("precompile/*/*", "x-evm")],
        }
    }

    #[test]
    fn the_file_keeps_what_the_adapter_pins_not_what_the_machine_has() {
        let hello: Hello = serde_json::from_value(serde_json::json!({
            "protocol": 1,
            "runtime": {"name": "go", "version": "go1.26.8", "flags": ["cgo"]},
            "adapter": {"name": "dyno-adapter-x", "version": "0.1.0"},
            "libraries": {"std": "go1.26.8", "github.com/ethereum/go-ethereum": "v1.17.8",
                          "node:crypto": "OpenSSL 3.0.19"},
            "clock": {"source": "time.Now"},
            "benchmarks": [
                {"id": "hash/sha256/32B", "implementation": "go-std", "library": "std"},
                {"id": "hash/keccak256/32B", "implementation": "geth"},
                {"id": "hash/keccak256/32B", "implementation": "geth"}
            ]
        }))
        .unwrap();
        let o = Offers::of(&hello);
        assert_eq!(o.adapter, "dyno-adapter-x 0.1.0");
        assert_eq!(
            o.libraries.keys().collect::<Vec<_>>(),
            ["github.com/ethereum/go-ethereum"]
        );
        let ids: Vec<&str> = o.benchmarks.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(
            ids,
            ["hash/keccak256/32B", "hash/sha256/32B"],
            "sorted, once each"
        );
        assert!(!o.to_file_text().contains("go1.26.8"));
    }

    #[test]
    fn a_file_round_trips_and_a_bad_one_names_its_line() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Offers::read(dir.path()).unwrap().is_none());
        std::fs::write(dir.path().join(OFFERS_FILE), offers().to_file_text()).unwrap();
        assert_eq!(Offers::read(dir.path()).unwrap(), Some(offers()));
        std::fs::write(
            dir.path().join(OFFERS_FILE),
            "{\n\"adapter\": \"a\",\n\"bogus\": 1\n}",
        )
        .unwrap();
        let e = Offers::read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("offers.json, line 3"), "{e}");
        assert!(e.contains("--write-offers"), "{e}");
    }

    #[test]
    fn patterns_cover_ids_and_each_implementation_comes_once() {
        let mut o = offers();
        o.benchmarks
            .push(offer("precompile/ecrecover/valid", "x-evm"));
        let got: Vec<&str> = o
            .implementations_of("precompile/ecrecover/valid")
            .iter()
            .map(|x| x.implementation.as_str())
            .collect();
        assert_eq!(got, ["x-evm"]);
        assert!(o.implementations_of("hash/keccak256/64B").is_empty());
    }

    #[test]
    fn a_file_that_drifted_from_the_worker_says_how() {
        let file = offers();
        assert!(file.differences(&offers()).is_empty());
        let mut live = offers();
        live.benchmarks.push(offer("hash/sha256/32B", "x-sha"));
        live.patterns.clear();
        let d = file.differences(&live);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].contains("lacks: hash/sha256/32B x-sha"), "{d:?}");
        assert!(
            d[1].contains("does not offer: precompile/*/* x-evm"),
            "{d:?}"
        );
        live = offers();
        live.libraries.insert("lib".into(), "2.0".into());
        assert_eq!(file.differences(&live).len(), 1);
    }
}
