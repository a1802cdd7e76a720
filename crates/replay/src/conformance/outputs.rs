//! What the client leaves behind: its block log, its metrics, its work folder, and how it stops.

use super::*;

pub(crate) fn block_log(run: &mut Run, client: &mut Running, sent: &[&Planned], log: &mut SlowLog) {
    if sent.is_empty() {
        run.add("block-log", Outcome::Skip, "no block was VALID".into());
        return;
    }
    let deadline = Instant::now() + Duration::from_secs(3);
    let found = loop {
        log.add(client.node.tail.take_kept());
        let found = sent
            .iter()
            .filter(|p| log.by_hash.contains_key(&p.payload.hash.to_string()))
            .count();
        if found == sent.len() || Instant::now() >= deadline {
            break found;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    if found == sent.len() {
        run.pass(
            "block-log",
            format!(
                "its per-block timing log (the slow-block JSON) joined by hash for {found} of {} blocks",
                sent.len()
            ),
        );
    } else if found == 0 && log.unparsed.is_empty() {
        run.add(
            "block-log",
            Outcome::Note,
            "missing: it wrote no per-block \"Slow block\" JSON line (geth's \
             --debug.logslowblock 0 format); a replay has dyno's timings only"
                .into(),
        );
    } else {
        let first = log
            .unparsed
            .first()
            .map(|(l, why)| format!("; a line that did not parse: {why}: {:.120}", l))
            .unwrap_or_default();
        run.fail(
            "block-log",
            format!(
                "its per-block log joined by hash for {found} of {} blocks{first}",
                sent.len()
            ),
        );
    }
}

pub(crate) fn metrics(run: &mut Run, client: &Running) {
    let Some(url) = &client.node.metrics_url else {
        run.add(
            "metrics",
            Outcome::Note,
            "missing: the command line has no {metrics_port}".into(),
        );
        return;
    };
    let shown = url.replace("http://127.0.0.1", "127.0.0.1");
    match dyno_node::metrics::scrape(url, Duration::from_secs(10)) {
        Ok(series) if !series.is_empty() => run.pass(
            "metrics",
            format!("{} Prometheus series scraped at {shown}", series.len()),
        ),
        // Nothing listens at the port it was given: no metrics, a note.
        Err(e) if !answers(url) => run.add(
            "metrics",
            Outcome::Note,
            format!("missing: {}", one_line(&e)),
        ),
        // Something answers there, but not with metrics.
        Ok(_) => run.fail(
            "metrics",
            format!(
                "{shown} answers, but with no Prometheus series: serve the text exposition format \
                 there, or leave {{metrics_port}} out"
            ),
        ),
        Err(e) => run.fail(
            "metrics",
            format!(
                "{} (something answers at {{metrics_port}}, but not with metrics)",
                one_line(&e)
            ),
        ),
    }
}

/// True if a TCP connection to `url`'s host and port is taken.
pub(crate) fn answers(url: &str) -> bool {
    let host = url
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or("");
    std::net::ToSocketAddrs::to_socket_addrs(host)
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|a| std::net::TcpStream::connect_timeout(&a, Duration::from_secs(2)).is_ok())
}

/// The names in the working directory (a client started from a command
/// line runs in dyno's).
pub(crate) fn workdir() -> std::collections::BTreeSet<std::ffi::OsString> {
    std::fs::read_dir(".")
        .into_iter()
        .flatten()
        .filter_map(|e| Some(e.ok()?.file_name()))
        .collect()
}

pub(crate) fn stop(
    run: &mut Run,
    client: Running,
    listening: &[dyno_process::sockets::Listener],
    before: &std::collections::BTreeSet<std::ffi::OsString>,
) {
    let mut node = client.node;
    let Some(stopped) = node.stop_observed(STOP_LIMIT) else {
        run.fail("stop", "the client had already exited".into());
        return;
    };
    // A port it held, taken again: a listener that escaped its process
    // group still holds it.
    let still_bound: Vec<String> = listening
        .iter()
        .filter(|l| l.protocol == "tcp" && std::net::TcpListener::bind(l.address).is_err())
        .map(ToString::to_string)
        .collect();
    let mut wrong = Vec::new();
    if stopped.status.is_none() {
        wrong.push(format!(
            "it did not exit within {} s of SIGTERM (killed)",
            STOP_LIMIT.as_secs()
        ));
    }
    if !stopped.left_running.is_empty() {
        wrong.push(format!(
            "{} of its processes ran on after it exited (killed): {}",
            stopped.left_running.len(),
            stopped.left_running.join(", ")
        ));
    }
    if !stopped.left_unattributed.is_empty() {
        wrong.push(format!(
            "listeners that appeared while it ran outlived it, held by no process dyno can see: {}",
            stopped
                .left_unattributed
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !stopped.left_listening.is_empty() || !still_bound.is_empty() {
        let mut ports: Vec<String> = stopped
            .left_listening
            .iter()
            .map(ToString::to_string)
            .collect();
        ports.extend(still_bound);
        wrong.push(format!("still listening on {}", ports.join(", ")));
    }
    if !stopped.removed {
        wrong.push("its data folder could not be removed".into());
    }
    let litter: Vec<String> = workdir()
        .difference(before)
        .map(|n| n.to_string_lossy().into_owned())
        .collect();
    if !litter.is_empty() {
        wrong.push(format!(
            "it left {} in the working directory: write into {{datadir}} only",
            litter.join(", ")
        ));
    }
    if wrong.is_empty() {
        let how = stopped.status.map_or("?".into(), |s| {
            s.code().map_or(s.to_string(), |c| format!("exit {c}"))
        });
        run.pass(
            "stop",
            format!(
                "SIGTERM: {how} after {:.2} s; nothing left running or listening; its data removed",
                stopped.took.as_secs_f64()
            ),
        );
    } else {
        run.fail("stop", wrong.join("; "));
    }
}
