//! The HTML report in a real browser: render it from the fixture runs in
//! `tests/data` (a micro run, a gas run priced here, a load run with its
//! plots, and a trend over three micro runs), open it in headless Chromium
//! with networking off, check that every chart rendered, and keep a
//! screenshot as a test artifact (`$DYNO_ARTIFACTS/report.png`, else under
//! Cargo's target tmp dir) after checking it is not blank.
//!
//! Chromium comes from `scripts/chromium.sh`. Without it the test is
//! skipped with a loud message, except under CI (`CI=true`), where it fails.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod fixtures;

/// Longest a Chromium invocation may take.
const TIMEOUT: Duration = Duration::from_secs(60);
/// The browser window's width, in CSS pixels.
const WIDTH: u32 = 1400;
/// Charts the fixtures must give at least: the micro run's five families,
/// the gas run's families and its scatter, five load plots and the trends.
const MIN_CHARTS: usize = 42;

/// `chromium` on PATH, else Debian's `/usr/bin/chromium`.
fn chromium() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
            .find(|p| p.is_file())
    });
    on_path.or_else(|| {
        let p = PathBuf::from("/usr/bin/chromium");
        p.is_file().then_some(p)
    })
}

/// Run Chromium headless on `page` with networking off and the extra
/// `args`; its stdout, or why it failed. Killed (with every process it
/// started) after [`TIMEOUT`].
fn run_chromium(
    bin: &Path,
    profile: &Path,
    args: &[String],
    page: &Path,
) -> Result<String, String> {
    use std::os::unix::process::CommandExt as _;
    let mut cmd = Command::new(bin);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--metrics-recording-only",
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=127.0.0.1:9",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--mute-audio",
        "--force-color-profile=srgb",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(args)
    .arg(format!("file://{}", page.display()))
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    // Its own process group, so a timeout ends its helpers too.
    .process_group(0);
    let mut child = cmd.spawn().map_err(|e| format!("{}: {e}", bin.display()))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > TIMEOUT => {
                // The group id is the child's pid (process_group(0)).
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => return Err(format!("waiting for chromium: {e}")),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    match status {
        None => Err(format!(
            "chromium did not finish in {} s and was killed; stderr:\n{stderr}",
            TIMEOUT.as_secs()
        )),
        Some(s) if !s.success() => Err(format!("chromium exited with {s}; stderr:\n{stderr}")),
        Some(_) => Ok(stdout),
    }
}

/// The value of `data-NAME` on the dumped `<body>`.
fn body_data(dom: &str, name: &str) -> Option<u64> {
    let body = dom.find("<body")?;
    let tag_end = dom[body..].find('>')? + body;
    let tag = &dom[body..tag_end];
    let key = format!("data-{name}=\"");
    let i = tag.find(&key)? + key.len();
    tag[i..].split('"').next()?.parse().ok()
}

/// Colours and non-background pixels of a PNG.
fn png_stats(path: &Path) -> (u32, u32, usize, f64) {
    let file = std::fs::File::open(path).unwrap();
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane PNG size")];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let bytes = &buf[..info.buffer_size()];
    let mut counts = std::collections::HashMap::<u32, usize>::new();
    for px in bytes.chunks_exact(channels) {
        let (r, g, b) = match channels {
            1 | 2 => (px[0], px[0], px[0]),
            _ => (px[0], px[1], px[2]),
        };
        *counts
            .entry(u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b))
            .or_default() += 1;
    }
    let total: usize = counts.values().sum();
    let background = counts.values().copied().max().unwrap_or(0);
    let other = (total - background) as f64 / total.max(1) as f64;
    (info.width, info.height, counts.len(), other)
}

#[test]
fn the_report_renders_in_chromium() {
    let html = fixtures::page();
    let declared = html.matches("class=\"chart").count();
    assert!(
        declared >= MIN_CHARTS,
        "the page has {declared} charts, expected at least {MIN_CHARTS}"
    );

    let Some(bin) = chromium() else {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("chromium is not installed: CI must run scripts/chromium.sh before the tests");
        }
        eprintln!(
            "\n\n########################################################################\n\
             ### SKIPPED the_report_renders_in_chromium: chromium is not installed.\n\
             ### Install it with scripts/chromium.sh (Debian's chromium package).\n\
             ########################################################################\n"
        );
        return;
    };

    let work = tempfile::tempdir().unwrap();
    let page = work.path().join("report.html");
    std::fs::write(&page, &html).unwrap();

    // 1. The DOM after load: the page's script counted the charts that laid
    //    out with a non-empty box.
    let profile = tempfile::tempdir().unwrap();
    // The same width as the screenshot, so the page height it reports is
    // the screenshot's.
    let dom = run_chromium(
        &bin,
        profile.path(),
        &["--dump-dom".into(), format!("--window-size={WIDTH},2000")],
        &page,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let rendered = body_data(&dom, "charts-rendered")
        .unwrap_or_else(|| panic!("no data-charts-rendered on <body>: did the script run?"));
    let total = body_data(&dom, "charts-total").expect("data-charts-total");
    println!("charts rendered: {rendered} of {total}");
    assert_eq!(rendered, total, "some charts did not render");
    assert_eq!(
        total as usize, declared,
        "the browser saw another chart count"
    );
    assert!(total as usize >= MIN_CHARTS);
    let height = body_data(&dom, "page-height").unwrap_or(4000);
    println!("page height: {height} px");

    // 2. A screenshot of the whole page (as tall as Chromium allows).
    let artifacts = std::env::var_os("DYNO_ARTIFACTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("artifacts"));
    std::fs::create_dir_all(&artifacts).unwrap();
    let shot = artifacts.join("report.png");
    let _ = std::fs::remove_file(&shot);
    let profile = tempfile::tempdir().unwrap();
    let h = height.clamp(1000, 32_000);
    run_chromium(
        &bin,
        profile.path(),
        &[
            format!("--screenshot={}", shot.display()),
            format!("--window-size={WIDTH},{h}"),
        ],
        &page,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(&page, artifacts.join("report.html")).unwrap();
    println!("screenshot: {}", shot.display());
    println!("page: {}", artifacts.join("report.html").display());

    let (w, hh, colours, other) = png_stats(&shot);
    println!(
        "screenshot {w}x{hh}: {colours} colours, {:.1}% non-background",
        other * 100.0
    );
    assert!(w >= 1000 && hh >= 1000, "screenshot is {w}x{hh}");
    assert!(colours >= 64, "only {colours} colours: a blank page?");
    assert!(
        other > 0.02,
        "{:.2}% non-background pixels: a blank page?",
        other * 100.0
    );
}
