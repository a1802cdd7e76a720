//! Every table in docs/ marked as generated agrees with the raw file it is
//! generated from: `cargo run -p dyno-figures -- write` regenerates them.

use std::path::Path;

#[test]
fn every_generated_table_agrees_with_its_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let differences = dyno_figures::check(&root).unwrap();
    let shown: Vec<String> = differences.iter().map(ToString::to_string).collect();
    assert!(
        differences.is_empty(),
        "{}\n(run `cargo run -p dyno-figures -- write` to regenerate them)",
        shown.join("\n")
    );
}

/// The check reads the docs as they are: a cell edited by hand is found.
#[test]
fn a_hand_edited_cell_is_found() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    for sub in ["docs/trials", "docs/research", "specs"] {
        std::os::unix::fs::symlink(root.join(sub).canonicalize().unwrap(), dir.path().join(sub))
            .unwrap();
    }
    let text = std::fs::read_to_string(root.join("docs/replay.md")).unwrap();
    let generated = dyno_figures::replay::validate_table(&root).unwrap();
    assert!(
        text.contains(&generated),
        "docs/replay.md holds the generated table"
    );
    // One cell changed by hand.
    let cell = generated.lines().nth(2).unwrap();
    let edited = cell.replacen(" | ", " | 1", 2);
    std::fs::write(
        dir.path().join("docs/replay.md"),
        text.replacen(cell, &edited, 1),
    )
    .unwrap();
    let d = dyno_figures::check(dir.path()).unwrap();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].doc, edited);
}
