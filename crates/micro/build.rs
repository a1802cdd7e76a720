//! Reads the exact version of each direct dependency from the workspace
//! Cargo.lock, so every result names the implementation version it measured.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let lock_path = manifest.join("../../Cargo.lock");
    // Relative to the package, as cargo reads it: an absolute path would tie
    // the build script's fingerprint to this clone's folder, and a kept
    // target directory would rebuild everything above dyno-micro in another.
    println!("cargo:rerun-if-changed=../../Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();

    // name -> versions, and dyno-micro's dependency list.
    let mut versions: HashMap<String, Vec<String>> = HashMap::new();
    let mut ours: Vec<String> = Vec::new();
    for block in lock.split("[[package]]") {
        let field = |key: &str| {
            block
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{key} = \"")))
                .map(|v| v.trim_end_matches('"').to_string())
        };
        let (Some(name), Some(version)) = (field("name"), field("version")) else {
            continue;
        };
        if name == "dyno-micro" {
            let mut in_deps = false;
            for l in block.lines() {
                let l = l.trim();
                if l.starts_with("dependencies = [") {
                    in_deps = true;
                } else if in_deps && l == "]" {
                    in_deps = false;
                } else if in_deps {
                    ours.push(l.trim_matches(|c| c == '"' || c == ',').to_string());
                }
            }
        }
        versions.entry(name).or_default().push(version);
    }

    let mut out = String::from(
        "/// The locked version of a direct dependency, or \"unknown\".\n\
         pub(crate) fn version(name: &str) -> &'static str {\n    match name {\n",
    );
    for dep in ours {
        let (name, version) = match dep.split_once(' ') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => {
                let v = versions.get(&dep).and_then(|v| v.first()).cloned();
                (dep.clone(), v.unwrap_or_else(|| "unknown".into()))
            }
        };
        writeln!(out, "        {name:?} => {version:?},").unwrap();
    }
    out.push_str("        _ => \"unknown\",\n    }\n}\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("versions.rs");
    std::fs::write(dest, out).unwrap();
}
