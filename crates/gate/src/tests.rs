//! The gate on synthetic, seeded runs: deterministic, so every figure here
//! is the same on every machine and every run of the tests.

use dyno_format::{BenchResult, Instructions, Mode, Run, Sample, VerificationStatus, fixture};
use dyno_stats::SplitMix64;

use super::*;

fn empty_run(id: &str, cpu: &str) -> Run {
    let mut run = fixture::run(id, Vec::new());
    run.environment.cpu_model = cpu.into();
    run
}

/// A passed result whose samples (of 1000 iterations each) take `per_op`
/// ns per operation; no statistics, as the gate works from the samples.
fn result(id: &str, per_op: &[f64]) -> BenchResult {
    let mut r = fixture::result(id, "impl", None);
    r.baseline = true;
    r.mode = Some(Mode::Batched);
    r.verification.status = VerificationStatus::Passed;
    r.samples = per_op
        .iter()
        .map(|&x| Sample {
            iters: 1000,
            ns: (x * 1000.0) as u64,
        })
        .collect();
    r
}

/// A noisy timing model: each run shifts every benchmark by a run-level
/// drift (lognormal, `drift` sd), each sample adds lognormal noise
/// (`noise` sd) and 3% of samples are outliers 1.3-2x slow.
struct Model {
    rng: SplitMix64,
    benches: Vec<(String, f64)>,
    drift: f64,
    noise: f64,
    samples: usize,
}

impl Model {
    fn new(seed: u64, m: usize) -> Self {
        let mut rng = SplitMix64(seed);
        let benches = (0..m)
            .map(|i| (format!("g/op{i}/in"), 100.0 * (3.0 * rng.unit()).exp()))
            .collect();
        Self {
            rng,
            benches,
            drift: 0.01,
            noise: 0.04,
            samples: 50,
        }
    }

    fn run(&mut self, id: &str, slow: Option<(usize, f64)>) -> Run {
        let mut run = empty_run(id, "cpu A");
        for (i, (bid, base)) in self.benches.clone().iter().enumerate() {
            let factor = slow.filter(|s| s.0 == i).map_or(1.0, |s| s.1);
            let level = base * factor * (self.drift * self.rng.normal()).exp();
            let xs: Vec<f64> = (0..self.samples)
                .map(|_| {
                    let x = level * (self.noise * self.rng.normal()).exp();
                    if self.rng.unit() < 0.03 {
                        x * (1.3 + 0.7 * self.rng.unit())
                    } else {
                        x
                    }
                })
                .collect();
            run.results.push(result(bid, &xs));
        }
        run
    }
}

/// No bootstrap CIs: the verdict does not use them, and hundreds of
/// comparisons stay fast.
fn fast() -> Options {
    Options {
        resamples: 0,
        ..Options::default()
    }
}

#[test]
fn a_25_percent_slowdown_is_flagged_in_at_least_95_percent_of_trials() {
    let mut model = Model::new(1, 40);
    let trials = 200;
    let mut caught = 0;
    let mut others_flagged = 0;
    for t in 0..trials {
        let base = model.run("a", None);
        let new = model.run("b", Some((t % 40, 1.25)));
        let c = compare(&base, &new, "a", "b", &fast()).unwrap();
        for r in &c.rows {
            let slowed = r.id == format!("g/op{}/in", t % 40);
            match (slowed, r.verdict) {
                (true, Verdict::Regressed) => caught += 1,
                (false, Verdict::Regressed | Verdict::Improved) => others_flagged += 1,
                _ => {}
            }
        }
    }
    // Seeded: these counts are exact on every machine.
    assert!(caught * 100 >= trials * 95, "caught {caught}/{trials}");
    assert_eq!(others_flagged, 0, "false alarms among unchanged benchmarks");
}

#[test]
fn a_a_comparisons_stay_quiet() {
    let mut model = Model::new(2, 40);
    let mut flagged = 0;
    for _ in 0..200 {
        let (a, b) = (model.run("a", None), model.run("b", None));
        let c = compare(&a, &b, "a", "b", &fast()).unwrap();
        flagged += c.count(Verdict::Regressed) + c.count(Verdict::Improved);
        assert_eq!(c.family, 40);
    }
    assert_eq!(flagged, 0);
}

#[test]
fn significance_alone_is_not_a_regression() {
    // A 5% slowdown with tight samples is highly significant but within
    // the 20% threshold: no change.
    let mut model = Model::new(3, 5);
    model.noise = 0.005;
    model.drift = 0.0;
    let base = model.run("a", None);
    let new = model.run("b", Some((0, 1.05)));
    let c = compare(&base, &new, "a", "b", &Options::default()).unwrap();
    let row = &c.rows[0];
    assert!(row.p_adjusted.unwrap() < 1e-6);
    assert_eq!(row.verdict, Verdict::NoChange);
    // The same 5% with a 3% threshold is a regression.
    let strict = Options {
        threshold: Some(0.03),
        ..Options::default()
    };
    let c = compare(&base, &new, "a", "b", &strict).unwrap();
    assert_eq!(c.rows[0].verdict, Verdict::Regressed);
    assert!(c.rows[0].ratio_ci.unwrap().lower > 1.03);
}

#[test]
fn large_but_noisy_change_with_few_samples_is_insufficient() {
    let mut model = Model::new(4, 30);
    model.samples = 5;
    let base = model.run("a", None);
    let new = model.run("b", Some((0, 1.5)));
    let c = compare(&base, &new, "a", "b", &Options::default()).unwrap();
    assert_eq!(c.rows[0].verdict, Verdict::Insufficient);
    let note = c.rows[0].note.as_deref().unwrap();
    assert!(
        note.contains("smallest p") && note.contains("--samples"),
        "{note}"
    );
    assert_eq!(c.family, 0);
}

#[test]
fn missing_wrong_and_new_only_results_are_insufficient_with_reasons() {
    let mut base = empty_run("a", "cpu A");
    let mut new = empty_run("b", "cpu A");
    let xs: Vec<f64> = (0..20).map(|i| 100.0 + i as f64).collect();
    base.results.push(result("g/kept/x", &xs));
    base.results.push(result("g/gone/x", &xs));
    let mut wrong = result("g/wrong/x", &xs);
    base.results.push(result("g/wrong/x", &xs));
    wrong.verification.status = VerificationStatus::Failed;
    new.results.push(result("g/kept/x", &xs));
    new.results.push(wrong);
    new.results.push(result("g/added/x", &xs));
    let c = compare(&base, &new, "a", "b", &Options::default()).unwrap();
    let by = |id: &str| c.rows.iter().find(|r| r.id == id).unwrap();
    assert_eq!(by("g/kept/x").verdict, Verdict::NoChange);
    for (id, says) in [
        ("g/gone/x", "not measured in the new run"),
        ("g/wrong/x", "WRONG"),
        ("g/added/x", "not in the baseline"),
    ] {
        assert_eq!(by(id).verdict, Verdict::Insufficient, "{id}");
        assert!(by(id).note.as_deref().unwrap().contains(says), "{id}");
    }
    // Nothing in common is an error, not a pass.
    let other = empty_run("c", "cpu A");
    assert!(matches!(
        compare(&base, &other, "a", "c", &Options::default()),
        Err(GateError::Disjoint { .. })
    ));
}

#[test]
fn another_machine_is_compared_through_the_reference() {
    // Machine B is uniformly 2x slower; the benchmark is 30% slower on top.
    let xs =
        |level: f64| -> Vec<f64> { (0..30).map(|i| level * (1.0 + i as f64 * 1e-3)).collect() };
    let mut base = empty_run("a", "cpu A");
    base.results.push(result(DEFAULT_REFERENCE, &xs(50_000.0)));
    base.results.push(result("g/x/y", &xs(1_000.0)));
    let mut new = empty_run("b", "cpu B");
    new.results.push(result(DEFAULT_REFERENCE, &xs(100_000.0)));
    new.results.push(result("g/x/y", &xs(2_600.0)));
    let c = compare(&base, &new, "a", "b", &Options::default()).unwrap();
    let n = c.normalised.as_ref().expect("normalised");
    assert!(n.reason.contains("cpu A") && n.reason.contains("cpu B"));
    assert!(c.notes.iter().any(|x| x.contains("divided by")));
    let row = c.rows.iter().find(|r| r.id == "g/x/y").unwrap();
    assert!((row.ratio.unwrap() - 1.3).abs() < 1e-4, "{:?}", row.ratio);
    assert_eq!(row.verdict, Verdict::Regressed);
    let reference = c.rows.iter().find(|r| r.id == DEFAULT_REFERENCE).unwrap();
    assert_eq!(reference.verdict, Verdict::NoChange);
    // Raw times, as asked: the machine's 2x shows, with a warning.
    let raw = Options {
        normalize: Normalize::Never,
        ..Options::default()
    };
    let c = compare(&base, &new, "a", "b", &raw).unwrap();
    assert!(c.normalised.is_none());
    assert!(c.notes.iter().any(|x| x.contains("--normalize never")));
    // No reference in the new run: a clear error.
    new.results.remove(0);
    let err = compare(&base, &new, "a", "b", &Options::default()).unwrap_err();
    assert!(err.to_string().contains("--normalize never"), "{err}");
}

#[test]
fn instruction_counts_use_the_threshold_alone() {
    let mut base = empty_run("a", "cpu A");
    let mut new = empty_run("b", "cpu B");
    let count = |per_op: f64| Instructions {
        per_op,
        iters: [100, 200],
        counts: [0, 0],
        tool: "callgrind".into(),
    };
    for (id, a, b) in [("g/a/x", 1000.0, 1250.0), ("g/b/x", 1000.0, 1100.0)] {
        let mut r = result(id, &[1.0]);
        r.instructions = Some(count(a));
        base.results.push(r.clone());
        r.instructions = Some(count(b));
        new.results.push(r);
    }
    let opts = Options {
        metric: Metric::Instructions,
        ..Options::default()
    };
    let c = compare(&base, &new, "a", "b", &opts).unwrap();
    assert!(c.normalised.is_none(), "counts need no normalisation");
    assert_eq!(c.rows[0].verdict, Verdict::Regressed);
    assert_eq!(c.rows[1].verdict, Verdict::NoChange);
}

#[test]
fn a_flag_must_survive_the_re_measurement() {
    let mut model = Model::new(5, 10);
    let base = model.run("a", None);
    let new = model.run("b", Some((3, 1.4)));
    let opts = Options::default();
    let first = compare(&base, &new, "a", "b", &opts).unwrap();
    assert_eq!(first.count(Verdict::Regressed), 1);
    // The slowdown was transient: the re-measurement is back to normal.
    let again = model.run("b2", None);
    let c = confirm(&first, &base, &again, &opts).unwrap();
    assert_eq!(c.count(Verdict::Regressed), 0);
    let row = &c.rows[3];
    assert_eq!(row.first_verdict, Some(Verdict::Regressed));
    assert!(row.note.as_deref().unwrap().contains("not confirmed"));
    // A real one stays.
    let again = model.run("b3", Some((3, 1.4)));
    let c = confirm(&first, &base, &again, &opts).unwrap();
    assert_eq!(c.count(Verdict::Regressed), 1);
    assert!(c.rows[3].note.as_deref().unwrap().contains("confirmed"));
}

#[test]
fn every_re_measure_must_agree_and_each_pass_is_kept() {
    let mut model = Model::new(6, 10);
    let base = model.run("a", None);
    let slow = |m: &mut Model, id: &str| m.run(id, Some((3, 1.4)));
    let opts = Options::default();
    let first = compare(&base, &slow(&mut model, "b"), "a", "b", &opts).unwrap();
    assert_eq!(first.count(Verdict::Regressed), 1);
    // Slow again in the first re-measure, then back to normal: the
    // machine was busy for a while, the build is not slower.
    let one = confirm(&first, &base, &slow(&mut model, "b2"), &opts).unwrap();
    assert_eq!(one.count(Verdict::Regressed), 1);
    let two = confirm(&one, &base, &model.run("b3", None), &opts).unwrap();
    assert_eq!(two.count(Verdict::Regressed), 0);
    let row = &two.rows[3];
    assert_eq!(row.verdict, Verdict::NoChange);
    assert_eq!(row.first_verdict, Some(Verdict::Regressed));
    assert_eq!(row.passes.len(), 3);
    assert!(row.passes[..2].iter().all(|r| r.unwrap() > 1.3), "{row:?}");
    assert!((row.passes[2].unwrap() - 1.0).abs() < 0.05, "{row:?}");
    let note = row.note.as_deref().unwrap();
    assert_eq!(note.matches(" then ").count(), 2, "{note}");
    assert!(note.ends_with("not confirmed"), "{note}");
    // A row no longer regressed is not looked at again.
    let three = confirm(&two, &base, &slow(&mut model, "b4"), &opts).unwrap();
    assert_eq!(three, two);
    // Rows never flagged carry no passes.
    assert!(
        two.rows
            .iter()
            .enumerate()
            .all(|(k, r)| k == 3 || r.passes.is_empty())
    );
}

#[test]
fn a_machine_that_changed_speed_is_called_out() {
    // Every benchmark drifts by a lognormal 40% between runs: many move
    // beyond 20% each way.
    let mut model = Model::new(7, 40);
    model.drift = 0.4;
    let base = model.run("a", None);
    let new = model.run("b", None);
    let c = compare(&base, &new, "a", "b", &fast()).unwrap();
    assert!(c.count(Verdict::Regressed) >= 3 && c.count(Verdict::Improved) >= 3);
    assert!(
        c.notes.iter().any(|n| n.contains("--metric instructions")),
        "{:?}",
        c.notes
    );
    // A real slowdown of a few benchmarks moves them one way only: no such note.
    let mut model = Model::new(8, 40);
    let base = model.run("a", None);
    let mut new = model.run("b", None);
    for r in new.results.iter_mut().take(5) {
        for s in &mut r.samples {
            s.ns = s.ns * 3 / 2;
        }
    }
    let c = compare(&base, &new, "a", "b", &fast()).unwrap();
    assert_eq!(c.count(Verdict::Regressed), 5);
    assert!(
        !c.notes.iter().any(|n| n.contains("--metric instructions")),
        "{:?}",
        c.notes
    );
}

#[test]
fn baseline_changes_are_described() {
    let mut old = empty_run("old", "cpu A");
    old.results.push(result("g/a/x", &[100.0; 10]));
    old.results.push(result("g/b/x", &[100.0; 10]));
    let mut new = empty_run("new", "cpu A");
    new.results.push(result("g/a/x", &[130.0; 10]));
    new.results.push(result("g/c/x", &[100.0; 10]));
    let lines = changes(Some(&old), &new, 0.05);
    let text = lines.join("\n");
    assert!(text.contains("added 1: g/c/x"), "{text}");
    assert!(text.contains("removed 1: g/b/x"), "{text}");
    assert!(
        text.contains("g/a/x [impl]: median 100.0000 -> 130.0000 ns (+30.0%)"),
        "{text}"
    );
    assert_eq!(changes(None, &new, 0.05), vec!["first version".to_string()]);
}
