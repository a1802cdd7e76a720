//! What a blob transaction's sidecar costs to make: for each of `--blobs`
//! distinct blobs, the KZG commitment and either the blob proof (EIP-4844)
//! or the 128 cell proofs (EIP-7594), timed one blob at a time on one
//! thread with c-kzg over the Ethereum trusted setup (the settings loaded
//! before timing). The load lab makes at most `drive::BLOB_SET` blobs a run
//! because of these figures (docs/load.md, Workloads).
//!
//! ```text
//! cargo bench -p dyno-load --bench blob_proofs -- [--blobs 8] [--out FILE]
//! ```

use std::time::Instant;

use dyno_load::blobs::{self, Form};
use serde_json::json;

fn main() {
    let mut n = 8u64;
    let mut out = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--blobs" => n = it.next().and_then(|v| v.parse().ok()).unwrap_or(n),
            "--out" => out = it.next(),
            _ => {}
        }
    }
    // Load the trusted setup (and warm the code) outside the timing.
    blobs::make(u64::MAX, Form::CellProofs).expect("c-kzg makes a blob");
    let mut forms = Vec::new();
    for form in [Form::BlobProofs, Form::CellProofs] {
        let ms: Vec<f64> = (0..n)
            .map(|k| {
                let t = Instant::now();
                blobs::make(k, form).expect("c-kzg makes a blob");
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        let mut sorted = ms.clone();
        sorted.sort_by(f64::total_cmp);
        let median = dyno_stats::percentile(&sorted, 50.0).unwrap_or(f64::NAN);
        println!(
            "{:<12} n = {n}  median {median:.1} ms a blob (min {:.1}, max {:.1})",
            form.as_str(),
            sorted[0],
            sorted[sorted.len() - 1]
        );
        forms.push(json!({ "form": form.as_str(), "ms_per_blob": ms, "median_ms": median }));
    }
    if let Some(path) = out {
        let doc = json!({
            "benchmark": "KZG commitment and proofs of one blob, c-kzg 2.1.8, one thread",
            "command": std::env::args().collect::<Vec<_>>().join(" "),
            "forms": forms,
        });
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&doc).expect("JSON") + "\n",
        )
        .unwrap_or_else(|e| {
            eprintln!("blob_proofs: {path}: {e}");
            std::process::exit(2);
        });
    }
}
