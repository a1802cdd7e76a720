//! How accurately the engine measures operations of known cost on the real
//! clock. A benchmark, not a test: the answer depends on the machine and on
//! what else it is doing, so it is run by hand and reported, never gated.
//!
//! ```text
//! cargo bench -p dyno-runner --bench calibration
//! ```
//!
//! Each operation spins until a fixed time has passed, so it costs that
//! time plus about one clock read. The engine must pick the expected
//! sampling mode and land within 10% of the known cost; the exit code is 1
//! if it does not.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use dyno_format::Mode;
use dyno_workload::Cases;

fn spin(d: Duration) -> impl FnMut(&u8) -> u8 {
    move |x| {
        let t = Instant::now();
        while t.elapsed() < d {
            std::hint::spin_loop();
        }
        *x
    }
}

fn main() -> ExitCode {
    let clock = dyno_runner::clock::calibrate();
    let engine = dyno_runner::Engine::new(dyno_runner::settings(false, None, &clock));
    println!(
        "clock: {} read {:.0} ns, resolution {:.0} ns",
        clock.source, clock.read_cost_ns, clock.resolution_ns
    );
    println!(
        "{:>10}  {:>10}  {:>12}  {:>12}  {:>7}  verdict",
        "known", "mode", "P50 ns", "slope ns", "error"
    );
    let mut ok = true;
    for (us, want) in [
        (2, Mode::LinearFit),
        (40, Mode::Batched),
        (300, Mode::Single),
    ] {
        let known = us as f64 * 1_000.0;
        let m = engine.measure(&mut Cases::expect(
            vec![(1u8, 1u8), (2, 2)],
            spin(Duration::from_micros(us)),
        ));
        let p50 = m.stats.as_ref().map_or(f64::NAN, |s| s.p50);
        let slope = m.fit.as_ref().map(|f| f.slope);
        let estimate = slope.unwrap_or(p50);
        let error = (estimate - known) / known;
        let good = m.mode == Some(want) && error.abs() <= 0.10;
        ok &= good;
        println!(
            "{:>8} µs  {:>10}  {:>12.0}  {:>12}  {:>+6.1}%  {}",
            us,
            m.mode.map_or("-".into(), |m| format!("{m:?}")),
            p50,
            slope.map_or("-".into(), |s| format!("{s:.0}")),
            100.0 * error,
            if good { "ok" } else { "OFF" }
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!("calibration: an estimate was off by more than 10% or used the wrong mode");
        ExitCode::FAILURE
    }
}
