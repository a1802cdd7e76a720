//! `dyno adapter new RUNTIME DIR`: a new adapter folder from the runtime's
//! template (`templates/adapters/<runtime>/`): the protocol loop from the
//! runtime's protocol library (found in the adapters folder, as
//! `<runtime>-protocol`), one example benchmark, its test, `setup` and the
//! lockfile set-up. The template's text says `{{name}}` for the adapter's
//! name (the folder's) and `{{protocol}}` for the protocol library's
//! absolute path; a file named `*.tmpl` loses the suffix.

use std::path::{Path, PathBuf};

use crate::paths::Paths;
use crate::refuse;

/// The runtimes with a template.
pub const RUNTIMES: [&str; 5] = ["go", "java", "node", "python", "scala"];

/// The protocol library a runtime's template depends on (Scala runs on the
/// JVM and uses Java's).
fn library(runtime: &str) -> &str {
    match runtime {
        "scala" => "java-protocol",
        "go" => "go-protocol",
        "java" => "java-protocol",
        "node" => "node-protocol",
        _ => "python-protocol",
    }
}

/// Write a `runtime` adapter into `dir`, which must not exist or be empty.
/// Returns how many files were written.
pub fn new(paths: &Paths, runtime: &str, dir: &Path) -> crate::Result<usize> {
    let runtime = runtime.to_ascii_lowercase();
    if !RUNTIMES.contains(&runtime.as_str()) {
        refuse!(
            "dyno adapter new {runtime:?}: no template for it; choose from {}",
            RUNTIMES.join(", ")
        );
    }
    let template = crate::paths::data_dir(None, "templates")
        .join("adapters")
        .join(&runtime);
    if !template.is_dir() {
        refuse!(
            "the {runtime} template is missing ({}); run dyno from its repository",
            template.display()
        );
    }
    let protocol = paths.adapters.join(library(&runtime));
    let protocol = std::fs::canonicalize(&protocol).map_err(|e| {
        crate::Error::Refused(format!(
            "the {runtime} protocol library {}: {e}",
            protocol.display()
        ))
    })?;
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            refuse!(
                "{}: exists and is not an empty folder; give a new folder for the adapter",
                dir.display()
            );
        }
    }
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| {
            !n.is_empty()
                && n.starts_with(|c: char| c.is_ascii_lowercase())
                && n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
        .ok_or_else(|| {
            crate::Error::Refused(format!(
                "{}: an adapter's folder names it and its implementations, so use lower-case \
                 letters, digits and `-`, starting with a letter (e.g. my-adapter)",
                dir.display()
            ))
        })?
        .to_string();
    let files = dyno_adapter::source_files(&template)
        .map_err(|e| crate::Error::Refused(format!("{}: {e}", template.display())))?;
    let fill = |text: &str| {
        text.replace("{{name}}", &name)
            .replace("{{protocol}}", &protocol.display().to_string())
    };
    for rel in &files {
        let from = template.join(rel);
        let rel_out = PathBuf::from(fill(&rel.to_string_lossy()));
        let rel_out = match rel_out.to_string_lossy().strip_suffix(".tmpl") {
            Some(s) => PathBuf::from(s),
            None => rel_out,
        };
        let to = dir.join(&rel_out);
        let write = || -> std::io::Result<()> {
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let bytes = std::fs::read(&from)?;
            match String::from_utf8(bytes) {
                Ok(text) => std::fs::write(&to, fill(&text))?,
                Err(e) => std::fs::write(&to, e.into_bytes())?,
            }
            std::fs::set_permissions(&to, std::fs::metadata(&from)?.permissions())
        };
        write().map_err(|e| crate::Error::Refused(format!("{}: {e}", to.display())))?;
    }
    Ok(files.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(adapters: &Path) -> Paths {
        let mut p = Paths::from_flags(crate::paths::Flags::default(), |_| None).unwrap();
        p.adapters = adapters.to_path_buf();
        p
    }

    #[test]
    fn every_runtime_has_a_template_and_a_protocol_library() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for rt in RUNTIMES {
            assert!(
                root.join("templates/adapters")
                    .join(rt)
                    .join("setup")
                    .is_file(),
                "{rt}: no template setup"
            );
            assert!(
                root.join("adapters").join(library(rt)).is_dir(),
                "{rt}: no {}",
                library(rt)
            );
        }
    }

    #[test]
    fn a_bad_runtime_folder_or_name_is_refused_before_writing() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../adapters");
        let p = paths(&root);
        let t = tempfile::tempdir().unwrap();
        let e = new(&p, "cobol", &t.path().join("x"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("choose from go, java, node, python, scala"),
            "{e}"
        );
        std::fs::write(t.path().join("full"), "").unwrap();
        let e = new(&p, "python", t.path()).unwrap_err().to_string();
        assert!(e.contains("not an empty folder"), "{e}");
        let e = new(&p, "python", &t.path().join("My_Adapter"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("lower-case"), "{e}");
        assert!(!t.path().join("My_Adapter").exists());
    }

    #[test]
    fn every_template_is_filled_in_with_the_name_and_its_library() {
        use std::os::unix::fs::PermissionsExt;
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../adapters");
        let p = paths(&root);
        let t = tempfile::tempdir().unwrap();
        for rt in RUNTIMES {
            let dir = t.path().join(format!("my-{rt}-adapter"));
            let n = new(&p, rt, &dir).unwrap();
            assert!(n >= 4, "{rt}: {n} files");
            let mut all = String::new();
            for f in &dyno_adapter::source_files(&dir).unwrap() {
                assert!(!f.to_string_lossy().ends_with(".tmpl"), "{}", f.display());
                all.push_str(&std::fs::read_to_string(dir.join(f)).unwrap());
            }
            for placeholder in ["{{name}}", "{{protocol}}"] {
                assert!(!all.contains(placeholder), "{rt}: {placeholder} was left");
            }
            assert!(all.contains(&format!("my-{rt}-adapter")), "{rt}");
            let lib = std::fs::canonicalize(root.join(library(rt))).unwrap();
            assert!(
                all.contains(&*lib.to_string_lossy()),
                "{rt}: no path to {}",
                library(rt)
            );
            for script in ["setup", "test"] {
                let mode = std::fs::metadata(dir.join(script))
                    .unwrap()
                    .permissions()
                    .mode();
                assert!(mode & 0o111 != 0, "{rt}: {script} is not executable");
            }
        }
    }
}
