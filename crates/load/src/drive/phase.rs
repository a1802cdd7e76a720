//! The timed phase and everything after it: sends on the schedule, inclusion, finality, the recount, the on-chain check, the summary.

use super::*;

/// How the timed phase ended early, if it did.
pub(crate) fn stop_reason(c: &Connected, seen: &Seen, interrupted: bool) -> Option<String> {
    if interrupted {
        return Some("interrupted (Ctrl-C)".into());
    }
    if let Err(e) = c.alive("during the timed phase") {
        return Some(e);
    }
    if seen.failures >= 50 {
        return Some(format!(
            "the node stopped answering ({} polls in a row failed: {})",
            seen.failures,
            seen.last_error.as_deref().unwrap_or("?")
        ));
    }
    None
}

/// What every timed phase of a command shares.
#[derive(Clone, Copy)]
pub struct Session<'a> {
    /// The options.
    pub opts: &'a Options,
    /// The generator's ceiling, measured once.
    pub self_test_rate: Option<f64>,
    /// Set by Ctrl-C.
    pub interrupt: &'a Arc<AtomicBool>,
    /// Progress messages for people.
    pub say: &'a (dyn Fn(&str) + Sync),
    /// Draw a live progress line (stderr is a terminal).
    pub live: bool,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("live", &self.live)
            .finish_non_exhaustive()
    }
}

/// The timed phase and everything after it, for one signing mode.
pub async fn run(
    c: &Connected,
    p: &Prepared,
    pre: Option<&Presigned>,
    mode: SignerMode,
    session: &Session<'_>,
) -> Outcome {
    let opts = session.opts;
    // Requests and records.
    let (out, records): (Vec<Outgoing>, Vec<TxRecord>) = match (mode, pre) {
        (SignerMode::Client, Some(pre)) => pre
            .plan
            .iter()
            .zip(&pre.signed)
            .enumerate()
            .map(|(i, (pl, s))| {
                (
                    Outgoing {
                        body: s.body.clone(),
                        expect: Some(s.hash),
                    },
                    TxRecord::planned(i as u64, pl.kind, Some(pl.sender), Some(pl.nonce)),
                )
            })
            .unzip(),
        _ => {
            let from = c.unlocked.unwrap_or_default();
            // Nonces are dyno's even here: nodes may hand concurrent calls
            // from one account the same nonce (anvil does).
            let first = chain::nonces(&c.client, &[from]).await.map_or(0, |n| n[0]);
            opts.mix
                .sequence(opts.txs)
                .into_iter()
                .enumerate()
                .map(|(i, kind)| {
                    let mut call =
                        txs::node_call(i as u64, from, kind, &p.fees, &p.gas, &p.targets);
                    call["nonce"] = serde_json::json!(format!("{:#x}", first + i as u64));
                    (
                        Outgoing {
                            body: txs::node_body(i as u64 + 1, &call),
                            expect: None,
                        },
                        TxRecord::planned(i as u64, kind, None, Some(first + i as u64)),
                    )
                })
                .unzip()
        }
    };
    let phase = Phase {
        mode,
        signing: pre.map(|pre| &pre.report),
        lead: Duration::from_millis(200),
    };
    timed(
        c,
        p,
        records,
        &phase,
        session,
        |t0, stop, progress| async move {
            tokio::time::sleep_until(t0.into()).await;
            send::send_all(
                &c.client,
                &out,
                &opts.schedule,
                &send::Pace {
                    cap: opts.open_loop_cap,
                    t0,
                    check_hashes: true,
                },
                &stop,
                &progress,
            )
            .await
        },
    )
    .await
}

/// What a timed phase is, beside its records.
#[derive(Debug, Clone, Copy)]
pub struct Phase<'a> {
    /// Who signed.
    pub mode: SignerMode,
    /// The signing report, when dyno signed.
    pub signing: Option<&'a SigningReport>,
    /// From now to the start (`t0`): long enough for the senders to be
    /// told it.
    pub lead: Duration,
}

/// The timed phase for `records` (one per planned transaction, in the
/// schedule's order), whoever sends them: `send` is given the start, the
/// stop flag and the progress counters, and returns what happened to each
/// request (`None`: never sent), its times counted from the start. The
/// chain is followed from here, and everything after the sends (inclusion,
/// finality, the recount, the on-chain check, the summary) is the same for
/// every sender: dyno's own on this machine, or a fleet's workers.
pub async fn timed<F, Fut>(
    c: &Connected,
    p: &Prepared,
    mut records: Vec<TxRecord>,
    phase: &Phase<'_>,
    session: &Session<'_>,
    send: F,
) -> Outcome
where
    F: FnOnce(Instant, Arc<AtomicBool>, Arc<Progress>) -> Fut,
    Fut: std::future::Future<Output = Vec<Option<send::Sent>>>,
{
    let Session {
        opts,
        self_test_rate,
        interrupt,
        say,
        live,
    } = *session;
    let mode = phase.mode;
    let seen = Arc::new(Mutex::new(Seen::default()));
    let stop_tracking = Arc::new(AtomicBool::new(false));
    let stop_sending = Arc::new(AtomicBool::new(false));
    let t0 = Instant::now() + phase.lead;
    let scraper = c
        .metrics_url
        .clone()
        .map(|u| crate::scrape::Scraper::start(u, opts.metrics_interval, t0));
    let tracker = tokio::spawn(track::follow(
        c.tracker.clone(),
        p.start_block,
        t0,
        opts.poll,
        seen.clone(),
        stop_tracking.clone(),
    ));
    // Watchdog: node exit, node silence, Ctrl-C; and the node's /proc.
    let progress = Arc::new(Progress::default());
    let sampler = Arc::new(Mutex::new(c.local.as_ref().and_then(|n| {
        n.lock()
            .unwrap_or_else(|pp| pp.into_inner())
            .pid()
            .map(|pid| ProcSampler::new(pid, t0))
    })));
    let reason: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let watchdog = {
        let (seen, stop_sending, reason, sampler, interrupt, progress) = (
            seen.clone(),
            stop_sending.clone(),
            reason.clone(),
            sampler.clone(),
            interrupt.clone(),
            progress.clone(),
        );
        let local = c.local.clone();
        let planned = records.len();
        let seen2 = seen.clone();
        let check = move || -> Option<String> {
            let seen = &seen2;
            if interrupt.load(Ordering::Relaxed) {
                return Some("interrupted (Ctrl-C)".into());
            }
            if let Some(n) = &local
                && let Err(e) = n
                    .lock()
                    .unwrap_or_else(|pp| pp.into_inner())
                    .check_alive("during the timed phase")
            {
                return Some(e.to_string());
            }
            let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
            (s.failures >= 50).then(|| {
                format!(
                    "the node stopped answering ({} polls in a row failed: {})",
                    s.failures,
                    s.last_error.as_deref().unwrap_or("?")
                )
            })
        };
        async move {
            let mut tick = tokio::time::interval(Duration::from_millis(250));
            let mut n = 0u64;
            loop {
                tick.tick().await;
                n += 1;
                if n.is_multiple_of(2)
                    && let Some(s) = sampler.lock().unwrap_or_else(|pp| pp.into_inner()).as_mut()
                {
                    s.sample();
                }
                if let Some(r) = check() {
                    reason
                        .lock()
                        .unwrap_or_else(|pp| pp.into_inner())
                        .get_or_insert(r);
                    stop_sending.store(true, Ordering::SeqCst);
                }
                if live && n.is_multiple_of(4) {
                    let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
                    eprint!(
                        "\r\x1b[2K  sent {}/{planned} · replies {} ({} errors) · head {} · in blocks {}",
                        progress.sent.load(Ordering::Relaxed),
                        progress.replied.load(Ordering::Relaxed),
                        progress.errors.load(Ordering::Relaxed),
                        s.head.last().map_or(0, |m| m.number),
                        s.hashes.len(),
                    );
                }
            }
        }
    };
    let watchdog = tokio::spawn(watchdog);

    // Send.
    let sends = send(t0, stop_sending.clone(), progress.clone()).await;
    let send_done = Instant::now();
    fill(&mut records, &sends, &opts.schedule);
    let accepted: Vec<B256> = records
        .iter()
        .filter(|r| r.accepted())
        .filter_map(|r| r.hash)
        .collect();

    // Wait for inclusion, then finality.
    let cut = || reason.lock().unwrap_or_else(|pp| pp.into_inner()).clone();
    if cut().is_none() {
        // The timeout runs from the last send, and again from each new
        // inclusion: a node still including (blob transactions go in at
        // a few a block) is waited for; a node that has stopped is not.
        let mut deadline = send_done + opts.inclusion_timeout;
        let mut included = 0;
        loop {
            let (all_in, now_in) = {
                let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
                let n = accepted.iter().filter(|h| s.hashes.contains(*h)).count();
                (n == accepted.len(), n)
            };
            if now_in > included {
                included = now_in;
                deadline = deadline.max(Instant::now() + opts.inclusion_timeout);
            }
            if all_in || Instant::now() > deadline || cut().is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let mut notes = Vec::new();
    if cut().is_none() && !opts.finality_timeout.is_zero() {
        let last_block = {
            let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
            s.blocks
                .iter()
                .filter(|b| b.txs.iter().any(|h| accepted.contains(h)))
                .map(|b| b.number)
                .max()
        };
        if let Some(last_block) = last_block {
            say(&format!(
                "waiting up to {:?} for block {last_block} to be finalized",
                opts.finality_timeout
            ));
            let deadline = Instant::now() + opts.finality_timeout;
            loop {
                let (done, unsupported) = {
                    let s = seen.lock().unwrap_or_else(|pp| pp.into_inner());
                    (
                        s.finalized.last().is_some_and(|m| m.number >= last_block),
                        s.unsupported.iter().any(|u| u.contains("`finalized`")),
                    )
                };
                if done || unsupported || cut().is_some() {
                    break;
                }
                if Instant::now() > deadline {
                    notes.push(format!(
                        "block {last_block} was not finalized within {:?} (--finality-timeout)",
                        opts.finality_timeout
                    ));
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    stop_tracking.store(true, Ordering::SeqCst);
    let _ = tracker.await;
    let scraped = match scraper {
        Some(s) => tokio::task::spawn_blocking(move || s.finish()).await.ok(),
        None => None,
    };
    if let Some(s) = &scraped
        && s.points.is_empty()
    {
        notes.push(format!(
            "the node's metrics at {} never answered: {}",
            s.url,
            s.last_error.as_deref().unwrap_or("no scrape")
        ));
    }
    watchdog.abort();
    if live {
        eprint!("\r\x1b[2K");
    }
    let duration_s = t0.elapsed().as_secs_f64();
    let interrupted = interrupt.load(Ordering::Relaxed);
    let seen = Arc::try_unwrap(seen).map_or_else(
        |a| std::mem::take(&mut *a.lock().unwrap_or_else(|pp| pp.into_inner())),
        |m| m.into_inner().unwrap_or_else(|pp| pp.into_inner()),
    );
    let incomplete = cut().or_else(|| stop_reason(c, &seen, interrupted));
    notes.extend(seen.unsupported.iter().cloned());

    // Settle every record; ask about the missing; scan the chain.
    let node_up = incomplete.is_none() || interrupted;
    let missing: Vec<B256> = accepted
        .iter()
        .filter(|h| !seen.hashes.contains(*h))
        .copied()
        .collect();
    let known = if node_up && !missing.is_empty() {
        chain::still_known(&c.client, &missing).await
    } else {
        HashMap::new()
    };
    summary::settle(
        &mut records,
        &seen.blocks,
        &seen.safe,
        &seen.finalized,
        &known,
    );
    let mut counts = summary::counts(&records);
    let ours: HashMap<B256, ()> = accepted.iter().map(|h| (*h, ())).collect();
    let mut chain_scan = None;
    let mut onchain_check = None;
    let mut blob_fee = summary::BlobFee {
        update_fraction: p.fork.blob_update_fraction,
        ..Default::default()
    };
    if node_up {
        match scan(&c.client, p.start_block, &ours).await {
            Ok(s) => {
                let matches = s.2 == counts.included;
                chain_scan = Some(ChainScan {
                    from_block: s.0,
                    to_block: s.1,
                    found: s.2,
                    matches,
                });
                if !matches {
                    notes.push(format!(
                        "the chain scan found {} of this run's transactions in blocks {}..={}, but the tracker counted {} included",
                        s.2, s.0, s.1, counts.included
                    ));
                }
            }
            Err(e) => notes.push(format!("the chain scan failed: {e}")),
        }
        let included: Vec<&TxRecord> = records
            .iter()
            .filter(|r| r.block.is_some() && r.hash.is_some())
            .collect();
        let hashes: Vec<B256> = included.iter().filter_map(|r| r.hash).collect();
        match chain::receipts(&c.client, &hashes).await {
            Ok(rs) => {
                counts.reverted = rs
                    .iter()
                    .flatten()
                    .filter(|r| r.status.is_some_and(|s| s.to::<u64>() == 0))
                    .count() as u64;
                // The on-chain check of every included transaction.
                let expected = onchain::expected(&records, &p.targets);
                let pairs: Vec<(&onchain::Expected, &chain::Receipt)> = included
                    .iter()
                    .zip(&rs)
                    .filter_map(|(r, rc)| Some((expected.get(r.index as usize)?, rc.as_ref()?)))
                    .collect();
                let mut check = OnChain::default();
                blob_fee.from_receipts = onchain::receipts(&pairs, &mut check);
                let checked: Vec<&onchain::Expected> = pairs.iter().map(|(e, _)| *e).collect();
                if let Err(e) = onchain::state(
                    &c.client,
                    &checked,
                    p.targets.store.unwrap_or_default(),
                    &mut check,
                )
                .await
                {
                    notes.push(format!("the on-chain check could not read the state: {e}"));
                }
                if check.failures > 0 {
                    notes.push(format!(
                        "the on-chain check failed {} time(s): {}",
                        check.failures,
                        check.problems.first().map_or("", String::as_str)
                    ));
                }
                onchain_check = Some(check);
            }
            Err(e) => notes.push(format!("reading receipts failed: {e}")),
        }
    }

    let lags = summary::lags(&records);
    let threshold_ns = opts.lag_threshold.as_nanos() as u64;
    let late = lags.iter().filter(|&&l| l > threshold_ns).count();
    let late_fraction = if lags.is_empty() {
        0.0
    } else {
        late as f64 / lags.len() as f64
    };
    let throughput = summary::throughput(&records);
    let intended_rate = opts.schedule.mean_rate(opts.txs);
    let generator = GeneratorInfo {
        intended_rate,
        achieved_send_rate: throughput.sent_average,
        lag: summary::latency(&lags),
        lag_threshold_ms: opts.lag_threshold.as_secs_f64() * 1e3,
        late_fraction,
        saturated: intended_rate.is_some() && late_fraction > 0.01,
        max_in_flight: opts.schedule.in_flight(opts.open_loop_cap) as u64,
        connections: opts.connections as u64,
        self_test_rate,
    };
    if generator.saturated {
        notes.push(format!(
            "generator saturated: {:.1}% of sends were more than {:.0} ms behind the schedule; the node was offered less than the intended rate",
            late_fraction * 100.0,
            generator.lag_threshold_ms
        ));
    }
    let (blocks, block_summary) = summary::blocks(&seen.blocks, &ours, &blob_fee);
    let resources = sampler
        .lock()
        .unwrap_or_else(|pp| pp.into_inner())
        .as_ref()
        .and_then(ProcSampler::finish);
    let workload: BTreeMap<String, u32> = opts
        .mix
        .0
        .iter()
        .map(|(k, w)| (k.as_str().to_string(), *w))
        .collect();
    let gas_limits: BTreeMap<String, u64> = opts
        .mix
        .kinds()
        .map(|k| (k.as_str().to_string(), p.gas.of(k)))
        .collect();
    let signing = phase.signing.map(signing_info);
    let result = LoadResult {
        id: format!("load/{}/{}", opts.workload_name, opts.schedule),
        node: c.info.clone(),
        signer: mode.as_str().into(),
        workload,
        schedule: opts.schedule_text.clone(),
        planned: opts.txs as u64,
        accounts: match mode {
            SignerMode::Client => opts.accounts as u64,
            SignerMode::Node => 1,
        },
        fees: p.fee_info.clone(),
        gas_limits,
        signing,
        generator,
        counts,
        throughput,
        latency: summary::latencies(&records),
        chain_scan,
        blocks,
        block_summary,
        resources,
        files: BTreeMap::new(),
        duration_s,
        complete: incomplete.is_none(),
        incomplete_reason: incomplete,
        notes,
        onchain: onchain_check,
        node_metrics: scraped
            .as_ref()
            .filter(|s| !s.points.is_empty())
            .map(crate::scrape::summary),
        fleet: None,
    };
    Outcome {
        result,
        records,
        head: seen.head,
        safe: seen.safe,
        finalized: seen.finalized,
        scraped,
    }
}

/// Put what happened to each request into its record; a request never
/// sent keeps the schedule's intended time.
pub fn fill(records: &mut [TxRecord], sends: &[Option<send::Sent>], schedule: &Schedule) {
    for (r, s) in records.iter_mut().zip(sends) {
        if let Some(s) = s {
            r.intended_ns = s.intended_ns;
            r.sent_ns = Some(s.sent_ns);
            r.replied_ns = Some(s.replied_ns);
            match &s.result {
                Ok(h) => r.hash = Some(*h),
                Err((class, msg)) => {
                    r.error_class = Some(class.clone());
                    r.error = Some(msg.clone());
                }
            }
        } else if let Some(off) = schedule.offset(r.index) {
            r.intended_ns = off.as_nanos() as u64;
        }
    }
}

/// Count this run's transactions in blocks after `start_block`, fetched
/// afresh: (from, to, found).
pub async fn scan(
    client: &Client,
    start_block: u64,
    ours: &HashMap<B256, ()>,
) -> Result<(u64, u64, u64), String> {
    let head = chain::head(client).await.map_err(|e| e.to_string())?;
    if head <= start_block {
        return Ok((start_block + 1, head, 0));
    }
    let blocks = track::fetch_blocks(client, start_block + 1, head).await?;
    let found = blocks
        .iter()
        .flat_map(|b| b.transactions.iter())
        .filter(|h| ours.contains_key(*h))
        .count() as u64;
    Ok((start_block + 1, head, found))
}

/// The format's copy of a signing report.
pub fn signing_info(r: &SigningReport) -> SigningInfo {
    SigningInfo {
        serial_txs: r.serial_txs as u64,
        serial_tx_per_s: r.serial_tx_per_s,
        serial_us_per_tx: r.serial_us_per_tx,
        threads: r.threads as u64,
        parallel_txs: r.parallel_txs as u64,
        parallel_tx_per_s: r.parallel_tx_per_s,
        per_core_tx_per_s: r.per_core_tx_per_s,
        libsecp256k1_sign_per_s: r.libsecp256k1_sign_per_s,
        fraction_of_libsecp256k1: r.fraction_of_libsecp256k1,
    }
}
