//! The read load: an open-loop schedule of eth_call, eth_getBalance, eth_getBlockByNumber and eth_getLogs, each reply checked.

use super::*;

/// A read method in the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ReadMethod {
    /// `eth_call` of `Token.balanceOf(address)`.
    Call,
    /// `eth_getBalance(address, "latest")`.
    GetBalance,
    /// `eth_getBlockByNumber(recent number, false)`.
    GetBlockByNumber,
    /// `eth_getLogs` over one block holding [`READ_LOAD_LOGS`] logs.
    GetLogs,
}

impl ReadMethod {
    /// Every method.
    pub const ALL: [ReadMethod; 4] = [
        ReadMethod::Call,
        ReadMethod::GetBalance,
        ReadMethod::GetBlockByNumber,
        ReadMethod::GetLogs,
    ];

    /// The JSON-RPC method name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReadMethod::Call => "eth_call",
            ReadMethod::GetBalance => "eth_getBalance",
            ReadMethod::GetBlockByNumber => "eth_getBlockByNumber",
            ReadMethod::GetLogs => "eth_getLogs",
        }
    }

    /// The short name (`call`, `balance`, `block`, `logs`).
    pub fn short(self) -> &'static str {
        match self {
            ReadMethod::Call => "call",
            ReadMethod::GetBalance => "balance",
            ReadMethod::GetBlockByNumber => "block",
            ReadMethod::GetLogs => "logs",
        }
    }
}

/// An unknown read method name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown read method {0:?}: choose eth_call, eth_getBalance, eth_getBlockByNumber or eth_getLogs (or call, balance, block, logs)"
)]
pub struct UnknownReadMethod(pub String);

impl FromStr for ReadMethod {
    type Err = UnknownReadMethod;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        ReadMethod::ALL
            .into_iter()
            .find(|m| m.as_str() == t || m.short() == t)
            .ok_or_else(|| UnknownReadMethod(s.into()))
    }
}

/// What [`read_load`] sends.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadLoadOptions {
    /// When each request is meant to go out.
    pub schedule: Schedule,
    /// Requests in all.
    pub requests: usize,
    /// Methods and weights, interleaved evenly (smooth weighted round robin).
    pub mix: Vec<(ReadMethod, u32)>,
}

impl Default for ReadLoadOptions {
    /// 5 000 requests at 500/s, the four methods in equal parts.
    fn default() -> Self {
        ReadLoadOptions {
            schedule: Schedule::Fixed { rate: 500.0 },
            requests: 5_000,
            mix: ReadMethod::ALL.iter().map(|m| (*m, 1)).collect(),
        }
    }
}

/// `n` methods in the mix's ratios, spread evenly.
pub(crate) fn sequence(mix: &[(ReadMethod, u32)], n: usize) -> Vec<ReadMethod> {
    crate::txs::interleave(mix, n)
}

/// What a read request must return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expect {
    /// One ABI word, exactly this.
    Word(B256),
    /// A hex quantity.
    Quantity,
    /// A block object with this number.
    Block(u64),
    /// An array of this many logs.
    Logs(usize),
}

/// One prebuilt read request.
#[derive(Debug, Clone)]
pub(crate) struct ReadRequest {
    method: ReadMethod,
    body: bytes::Bytes,
    expect: Expect,
}

/// What happened to one read request.
#[derive(Debug, Clone)]
pub(crate) struct ReadSent {
    intended_ns: u64,
    sent_ns: u64,
    replied_ns: u64,
    /// Response bytes, or the error's class and message.
    result: Result<usize, (String, String)>,
}

/// Check a reply against what its request must return.
pub(crate) fn check_reply(
    reply: Result<RawResponse, RpcError>,
    expect: &Expect,
) -> Result<usize, (String, String)> {
    let rpc_err = |e: RpcError| (e.class().as_str().to_string(), e.to_string());
    let raw = reply.map_err(rpc_err)?;
    let r = raw.reply().map_err(rpc_err)?;
    let bad = |why: String| ("invalid_response".to_string(), why);
    let text = r.raw();
    match expect {
        Expect::Word(w) => match serde_json::from_str::<Bytes>(text) {
            Ok(b) if b.as_ref() == w.as_slice() => {}
            Ok(b) => return Err(bad(format!("eth_call returned {b}, expected {w}"))),
            Err(e) => return Err(bad(format!("eth_call result {text}: {e}"))),
        },
        Expect::Quantity => {
            if let Err(e) = serde_json::from_str::<U256>(text) {
                return Err(bad(format!("eth_getBalance result {text}: {e}")));
            }
        }
        Expect::Block(n) => {
            #[derive(Deserialize)]
            struct Head {
                number: U64,
            }
            match serde_json::from_str::<Option<Head>>(text) {
                Ok(Some(h)) if h.number.to::<u64>() == *n => {}
                Ok(Some(h)) => {
                    return Err(bad(format!("asked for block {n}, got block {}", h.number)));
                }
                Ok(None) => return Err(bad(format!("block {n} not found (null)"))),
                Err(e) => return Err(bad(format!("block {n}: {e}"))),
            }
        }
        Expect::Logs(n) => match serde_json::from_str::<Vec<IgnoredAny>>(text) {
            Ok(v) if v.len() == *n => {}
            Ok(v) => return Err(bad(format!("{} logs, expected {n}", v.len()))),
            Err(e) => return Err(bad(format!("eth_getLogs result: {e}"))),
        },
    }
    Ok(raw.body.len())
}

/// Send `reqs` on `schedule` from `t0` with at most `cap` in flight (the
/// schedule's own cap under `max`): a pool of sender tasks claims requests
/// in order, each sleeps until its request's intended time, sends, and
/// waits for the reply, as [`crate::send::send_all`] does.
pub(crate) async fn send_reads(
    client: &Client,
    reqs: Vec<ReadRequest>,
    schedule: &Schedule,
    workers: usize,
    t0: Instant,
) -> Vec<Option<ReadSent>> {
    let n = reqs.len();
    let shared = Arc::new((reqs, schedule.clone(), AtomicUsize::new(0)));
    let ns = move |t: Instant| t.saturating_duration_since(t0).as_nanos() as u64;
    let mut pool = tokio::task::JoinSet::new();
    for _ in 0..workers {
        let (shared, client) = (shared.clone(), client.clone());
        pool.spawn(async move {
            let (reqs, schedule, next) = &*shared;
            let mut mine: Vec<(usize, ReadSent)> = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(r) = reqs.get(i) else { break };
                let intended = schedule.offset(i as u64).map(|d| t0 + d);
                if let Some(at) = intended
                    && at > Instant::now()
                {
                    tokio::time::sleep_until(at.into()).await;
                }
                let sent = Instant::now();
                let reply = client.post(r.body.clone()).await;
                let replied = Instant::now();
                // Checked after the reply time is taken: not in the latency.
                let result = check_reply(reply, &r.expect);
                mine.push((
                    i,
                    ReadSent {
                        intended_ns: intended.map_or_else(|| ns(sent), ns),
                        sent_ns: ns(sent),
                        replied_ns: ns(replied),
                        result,
                    },
                ));
            }
            mine
        });
    }
    let mut out: Vec<Option<ReadSent>> = vec![None; n];
    while let Some(done) = pool.join_next().await {
        for (i, s) in done.unwrap_or_default() {
            out[i] = Some(s);
        }
    }
    out
}

/// Deploy `Token` and `Logs`, emit [`READ_LOAD_LOGS`] logs in one block,
/// prebuild every request, then send them open-loop on the schedule and
/// summarise latency per method and the generator's lag.
pub async fn read_load(
    c: &Connected,
    opts: &Options,
    ro: &ReadLoadOptions,
    say: &dyn Fn(&str),
) -> Result<ReadLoad, LoadError> {
    if ro.requests == 0 {
        return Err(LoadError::Other(
            "read load: give at least one request".into(),
        ));
    }
    if ro.mix.iter().all(|(_, w)| *w == 0) {
        return Err(LoadError::Other(
            "read load: the mix has no method with a weight above 0".into(),
        ));
    }
    let mut d = deploy(c, opts, 3_000_000, true, say).await?;
    let token = d.token.unwrap_or_default();
    let logs_block = emit(c, &mut d, 1, READ_LOAD_LOGS, READ_LOAD_LOGS)
        .await?
        .from_block;
    let head = chain::head(&c.client).await?;

    // Addresses to ask about: the deployer (all the tokens) and 15 others
    // (none), each derived from the seed.
    let mut addresses = vec![(d.signer.address, U256::from(READ_TOKEN_SUPPLY))];
    for j in 0..15u64 {
        let mut m = opts.seed.as_bytes().to_vec();
        m.extend_from_slice(b"/read/");
        m.extend_from_slice(&j.to_be_bytes());
        addresses.push((Address::from_word(keccak256(&m)), U256::ZERO));
    }
    let balance_of = dyno_eth::abi::selector("balanceOf(address)");
    let recent = (head + 1).min(64);
    let reqs: Vec<ReadRequest> = sequence(&ro.mix, ro.requests)
        .into_iter()
        .enumerate()
        .map(|(i, method)| {
            let id = i as u64 + 1;
            let (who, tokens) = addresses[i % addresses.len()];
            let (body, expect) = match method {
                ReadMethod::Call => {
                    let mut data = balance_of.to_vec();
                    data.extend_from_slice(who.into_word().as_slice());
                    (
                        request_body(
                            id,
                            "eth_call",
                            json!([{ "to": token, "data": Bytes::from(data) }, "latest"]),
                        ),
                        Expect::Word(B256::from(tokens)),
                    )
                }
                ReadMethod::GetBalance => (
                    request_body(id, "eth_getBalance", json!([who, "latest"])),
                    Expect::Quantity,
                ),
                ReadMethod::GetBlockByNumber => {
                    let b = head - (i as u64 % recent);
                    (
                        request_body(
                            id,
                            "eth_getBlockByNumber",
                            json!([format!("{b:#x}"), false]),
                        ),
                        Expect::Block(b),
                    )
                }
                ReadMethod::GetLogs => (
                    get_logs_body(id, logs_block, logs_block, d.logs),
                    Expect::Logs(READ_LOAD_LOGS),
                ),
            };
            ReadRequest {
                method,
                body,
                expect,
            }
        })
        .collect();
    let methods: Vec<ReadMethod> = reqs.iter().map(|r| r.method).collect();

    let workers = ro
        .schedule
        .in_flight(opts.open_loop_cap)
        .max(1)
        .min(ro.requests);
    say(&format!(
        "sending {} read requests on {} ({} senders, {} connections)",
        ro.requests, ro.schedule, workers, opts.connections
    ));
    let t0 = Instant::now() + Duration::from_millis(100);
    let sent = send_reads(&c.client, reqs, &ro.schedule, workers, t0).await;
    c.alive("during the read load").map_err(LoadError::Other)?;

    // Summarise.
    let mut per: BTreeMap<ReadMethod, (ReadMethodStats, Vec<u64>, u64)> = BTreeMap::new();
    let mut lags = Vec::with_capacity(sent.len());
    let (mut first_sent, mut last_sent, mut last_reply) = (u64::MAX, 0u64, 0u64);
    let (mut n_sent, mut errors, mut ok) = (0u64, 0u64, 0u64);
    for (m, s) in methods.iter().zip(&sent) {
        let e = per.entry(*m).or_insert_with(|| {
            (
                ReadMethodStats {
                    n: 0,
                    errors: 0,
                    errors_by_class: BTreeMap::new(),
                    first_error: None,
                    latency: summary::latency(&[]),
                    mean_response_bytes: 0.0,
                },
                Vec::new(),
                0,
            )
        });
        let Some(s) = s else { continue };
        n_sent += 1;
        e.0.n += 1;
        lags.push(s.sent_ns.saturating_sub(s.intended_ns));
        first_sent = first_sent.min(s.sent_ns);
        last_sent = last_sent.max(s.sent_ns);
        last_reply = last_reply.max(s.replied_ns);
        match &s.result {
            Ok(bytes) => {
                ok += 1;
                e.1.push(s.replied_ns.saturating_sub(s.intended_ns));
                e.2 += *bytes as u64;
            }
            Err((class, msg)) => {
                errors += 1;
                e.0.errors += 1;
                *e.0.errors_by_class.entry(class.clone()).or_default() += 1;
                e.0.first_error.get_or_insert_with(|| msg.clone());
            }
        }
    }
    let per_method: BTreeMap<String, ReadMethodStats> = per
        .into_iter()
        .map(|(m, (mut st, lat, bytes))| {
            st.latency = summary::latency(&lat);
            st.mean_response_bytes = if lat.is_empty() {
                0.0
            } else {
                bytes as f64 / lat.len() as f64
            };
            (m.as_str().to_string(), st)
        })
        .collect();
    let intended_rate = ro.schedule.mean_rate(ro.requests);
    let span = last_sent.saturating_sub(first_sent) as f64 / 1e9;
    let achieved_rate = if n_sent > 1 && span > 0.0 {
        (n_sent - 1) as f64 / span
    } else {
        n_sent as f64
    };
    let duration_s = last_reply as f64 / 1e9;
    let completed_rate = if duration_s > 0.0 {
        ok as f64 / duration_s
    } else {
        0.0
    };
    let threshold = opts.lag_threshold.as_nanos() as u64;
    let late = lags.iter().filter(|&&l| l > threshold).count();
    let mut notes = Vec::new();
    if intended_rate.is_some() && !lags.is_empty() && late as f64 / lags.len() as f64 > 0.01 {
        notes.push(format!(
            "generator saturated: {:.1}% of sends were more than {:.0} ms behind the schedule; the node was offered less than the intended rate",
            late as f64 * 100.0 / lags.len() as f64,
            opts.lag_threshold.as_secs_f64() * 1e3
        ));
    }
    if errors > 0 {
        notes.push(format!("{errors} of {n_sent} read requests failed"));
    }
    let lag = summary::latency(&lags);
    say(&format!(
        "read load: {n_sent} sent at {achieved_rate:.0}/s, {errors} errors, lag P99 {:.2} ms",
        lag.p99
    ));
    Ok(ReadLoad {
        node: c.info.clone(),
        schedule: ro.schedule.to_string(),
        requests: ro.requests as u64,
        mix: ro
            .mix
            .iter()
            .map(|(m, w)| (m.as_str().to_string(), *w))
            .collect(),
        connections: opts.connections as u64,
        max_in_flight: workers as u64,
        intended_rate,
        achieved_rate,
        completed_rate,
        lag,
        sent: n_sent,
        errors,
        per_method,
        duration_s,
        notes,
    })
}
