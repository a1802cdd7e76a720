//! A node, started or not, with a client for it: connecting, waiting for it, and whether it still lives.

use super::*;

/// A node, started or not, with a client for it.
#[derive(Debug)]
pub struct Connected {
    /// The started process, if dyno started it.
    pub local: Option<Arc<Mutex<LocalNode>>>,
    /// Load client.
    pub client: Client,
    /// A separate client for the tracker, so it never queues behind load.
    pub tracker: Client,
    /// What is known of it.
    pub info: NodeInfo,
    /// Its JSON-RPC URL as given (`info.url` is redacted for results).
    pub url: String,
    /// Its unlocked account, if any.
    pub unlocked: Option<Address>,
    /// Where it serves Prometheus metrics: a started geth's, or
    /// `--metrics-url`.
    pub metrics_url: Option<String>,
}

impl Connected {
    /// `Err` with the node's last output if a started node has exited.
    pub fn alive(&self, when: &str) -> Result<(), String> {
        match &self.local {
            Some(n) => n
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .check_alive(when)
                .map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }

    /// Stop a started node and remove its data.
    pub fn stop(&self) {
        if let Some(n) = &self.local {
            n.lock()
                .unwrap_or_else(|p| p.into_inner())
                .stop(Duration::from_secs(10));
        }
    }
}

/// Start (or reach) the target and wait until its RPC answers.
pub async fn connect(
    target: &Target,
    opts: &Options,
    say: &dyn Fn(&str),
) -> Result<Connected, LoadError> {
    let (local, url) = match target {
        Target::Start(kind, home) => {
            let n = match (&opts.genesis, kind) {
                (None, _) => LocalNode::start(*kind, home, opts.block_time)?,
                (Some(g), node::Kind::Geth) => {
                    LocalNode::start_geth_dev_on(home, opts.block_time, g)?
                }
                (Some(_), _) => {
                    return Err(LoadError::Other(format!(
                        "only geth starts on a genesis dyno writes, not {}",
                        kind.as_str()
                    )));
                }
            };
            say(&format!(
                "started {} at {} ({})",
                kind.as_str(),
                n.url,
                n.version.as_deref().unwrap_or("version unknown")
            ));
            let url = n.url.clone();
            (Some(Arc::new(Mutex::new(n))), url)
        }
        Target::Cmd { cmd, url } => {
            let n = LocalNode::start_cmd(cmd, url)?;
            let url = n.url.clone();
            (Some(Arc::new(Mutex::new(n))), url)
        }
        Target::Rpc(url) => (None, url.clone()),
    };
    let endpoint = Endpoint::parse(&url)?;
    let client_opts = ClientOptions {
        connections: opts.connections,
        request_timeout: Some(opts.request_timeout),
        ..ClientOptions::default()
    };
    let connect_until_ready = async {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            if let Some(n) = &local {
                n.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .check_alive("while starting")?;
            }
            match Client::connect(&endpoint, client_opts.clone()).await {
                Ok(c) => break Ok::<Client, LoadError>(c),
                Err(e) if local.is_none() || Instant::now() > deadline => break Err(e.into()),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    };
    let client = connect_until_ready.await?;
    let local2 = local.clone();
    let mut alive = move || match &local2 {
        Some(n) => n
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .check_alive("while starting")
            .map_err(|e| e.to_string()),
        None => Ok(()),
    };
    let ready = chain::wait_ready(&client, Duration::from_secs(90), &mut alive).await?;
    let tracker = Client::connect(
        &endpoint,
        ClientOptions {
            connections: 2,
            request_timeout: Some(opts.request_timeout),
            ..ClientOptions::default()
        },
    )
    .await?;
    if matches!(target, Target::Start(node::Kind::Hardhat, _)) {
        // Hardhat logs every request; at thousands a second that costs it
        // CPU the measurement should not include.
        let _ = client
            .call::<serde_json::Value>("hardhat_setLoggingEnabled", serde_json::json!([false]))
            .await;
    }
    let chain_id = chain::chain_id(&client).await?;
    let version = chain::client_version(&client).await;
    let unlocked = chain::unlocked_account(&client).await;
    say(&format!(
        "{} is ready after {:.1} s: {version}, chain id {chain_id}",
        dyno_format::redact::url(&url),
        ready.as_secs_f64()
    ));
    let command = local
        .as_ref()
        .map(|n| n.lock().unwrap_or_else(|p| p.into_inner()).command.clone())
        .unwrap_or_default();
    let metrics_url = opts.metrics_url.clone().or_else(|| {
        local.as_ref().and_then(|n| {
            n.lock()
                .unwrap_or_else(|p| p.into_inner())
                .metrics_url
                .clone()
        })
    });
    Ok(Connected {
        local,
        client,
        tracker,
        info: NodeInfo {
            name: target.name(),
            version,
            command: dyno_format::redact::command_line(&command),
            url: dyno_format::redact::url(&url),
            chain_id,
            local: !matches!(target, Target::Rpc(_)),
        },
        url: url.clone(),
        metrics_url,
        unlocked,
    })
}
