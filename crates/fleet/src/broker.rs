//! The broker: its address, the fleet's topics, and one connection to it
//! whose messages arrive on a channel.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rumqttc::{AsyncClient, Event, LastWill, MqttOptions, Packet, QoS};
use tokio::sync::mpsc;

use crate::FleetError;
use crate::seal::{Key, Opened, Seal, SealError, Session};

/// The largest message either side sends or takes: a plan of a million
/// transactions is about 80 MiB of JSON, so plans and records go in chunks
/// well below it.
pub const MAX_MESSAGE: usize = 64 << 20;

/// A broker and the fleet's name on it: `mqtt://HOST:PORT/NAME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broker {
    /// Host name or address.
    pub host: String,
    /// TCP port (1883 unless given).
    pub port: u16,
    /// The fleet's name: its topics start `dyno/NAME/`.
    pub name: String,
    /// The broker's own username and password, if it asks for them
    /// ([`Broker::with_login`]); never part of the URL or its display.
    pub login: Option<crate::login::Login>,
    /// `mqtts://`: TLS, the broker's certificate checked against
    /// [`Broker::ca`] or else the machine's roots.
    pub tls: bool,
    /// The CA certificates (PEM) a TLS broker's certificate must chain to.
    pub ca: Option<std::path::PathBuf>,
}

impl Broker {
    /// Parse `mqtt://HOST[:PORT][/NAME]` (port 1883), or `mqtts://...`
    /// for TLS (port 8883).
    pub fn parse(given: &str) -> Result<Broker, FleetError> {
        // Never echo credentials: `mqtt://user:secret@host` is said as
        // `mqtt://***@host`.
        let shown = match (given.find("://"), given.rfind('@')) {
            (Some(a), Some(b)) if b > a => format!("{}***{}", &given[..a + 3], &given[b..]),
            _ => given.to_string(),
        };
        let bad = |reason: &str| FleetError::BadUrl {
            given: shown.clone(),
            reason: reason.into(),
        };
        let (rest, tls) = match (
            given.strip_prefix("mqtt://"),
            given.strip_prefix("mqtts://"),
        ) {
            (Some(r), _) => (r, false),
            (_, Some(r)) => (r, true),
            _ => return Err(bad("not an MQTT URL")),
        };
        let (hostport, name) = match rest.split_once('/') {
            Some((h, n)) => (h, n.trim_end_matches('/')),
            None => (rest, ""),
        };
        let name = if name.is_empty() { "dyno" } else { name };
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            return Err(bad(
                "the fleet name may hold letters, digits, '-', '_' and '.' only",
            ));
        }
        if hostport.contains('@') {
            return Err(bad(
                "credentials in the URL are not taken (they would be stored with the results)",
            ));
        }
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (
                h,
                p.parse::<u16>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| bad("the port is not a number from 1 to 65535"))?,
            ),
            _ => (hostport, if tls { 8883 } else { 1883 }),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(bad("no host"));
        }
        Ok(Broker {
            host: host.into(),
            port,
            name: name.into(),
            login: None,
            tls,
            ca: None,
        })
    }

    /// The same broker, its TLS certificate checked against the CA
    /// certificates (PEM) in `ca` rather than the machine's roots.
    pub fn with_ca(mut self, ca: Option<std::path::PathBuf>) -> Broker {
        self.ca = ca;
        self
    }

    /// The TLS set-up of a `mqtts://` broker: ring's provider, the roots of
    /// `ca` (PEM) or else the machine's.
    fn tls_config(&self) -> Result<rustls::ClientConfig, String> {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject as _;
        let mut roots = rustls::RootCertStore::empty();
        match &self.ca {
            Some(path) => {
                let shown = path.display();
                let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                    .map_err(|e| format!("the broker's CA file {shown}: {e}"))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("the broker's CA file {shown}: {e}"))?;
                let (added, _) = roots.add_parsable_certificates(certs);
                if added == 0 {
                    return Err(format!(
                        "the broker's CA file {shown}: no CA certificate in it (a PEM file of one or more \
                         `BEGIN CERTIFICATE` blocks)"
                    ));
                }
            }
            None => {
                let found = rustls_native_certs::load_native_certs();
                roots.add_parsable_certificates(found.certs);
                if roots.is_empty() {
                    return Err(
                        "this machine has no CA certificates to check the broker's against: give \
                         the broker's CA with --broker-ca FILE (dyno join) or --fleet-ca FILE \
                         (dyno load)"
                            .into(),
                    );
                }
            }
        }
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        Ok(rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth())
    }

    /// The same broker, logged into as `login`.
    pub fn with_login(mut self, login: Option<crate::login::Login>) -> Broker {
        self.login = login;
        self
    }

    fn root(&self) -> String {
        format!("dyno/{}", self.name)
    }

    /// Where a worker says who it is (retained; its last will goes here).
    pub fn state(&self, worker: &str) -> String {
        format!("{}/worker/{worker}/state", self.root())
    }

    /// Every worker's state.
    pub fn states(&self) -> String {
        format!("{}/worker/+/state", self.root())
    }

    /// What the orchestrator tells one worker.
    pub fn commands(&self, worker: &str) -> String {
        format!("{}/worker/{worker}/cmd", self.root())
    }

    /// What one worker tells the orchestrator.
    pub fn reports(&self, worker: &str) -> String {
        format!("{}/worker/{worker}/out", self.root())
    }

    /// Every worker's reports.
    pub fn all_reports(&self) -> String {
        format!("{}/worker/+/out", self.root())
    }

    /// The worker a `.../worker/NAME/...` topic is about.
    pub fn worker_of(topic: &str) -> Option<&str> {
        let mut parts = topic.split('/');
        while let Some(p) = parts.next() {
            if p == "worker" {
                return parts.next();
            }
        }
        None
    }
}

impl fmt::Display for Broker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}/{}", self.host, self.port, self.name)
        } else {
            write!(f, "{scheme}://{}:{}/{}", self.host, self.port, self.name)
        }
    }
}

/// What arrives on a connection.
#[derive(Debug)]
pub enum Incoming {
    /// A message on a subscribed topic.
    Message {
        /// Its topic.
        topic: String,
        /// Its bytes.
        payload: Vec<u8>,
    },
    /// The connection ended; nothing more will come.
    Lost(String),
}

/// One connection to the broker: publish with [`Link::publish`] (each
/// message sealed under the fleet's key), receive on `rx` and open each
/// message with [`Link::open`].
#[derive(Debug)]
pub struct Link {
    /// Publishes and subscribes.
    client: AsyncClient,
    /// Messages in arrival order, then at most one `Lost`.
    pub rx: mpsc::UnboundedReceiver<Incoming>,
    /// The broker.
    pub broker: Broker,
    seal: Arc<Mutex<Seal>>,
    pump: tokio::task::JoinHandle<()>,
}

/// A handle that publishes sealed messages from another task.
#[derive(Debug, Clone)]
pub struct Publisher {
    client: AsyncClient,
    seal: Arc<Mutex<Seal>>,
}

impl Publisher {
    /// Seal `body` for `to` and publish it on `topic`, at least once.
    pub async fn publish(
        &self,
        topic: &str,
        to: Option<Session>,
        body: &[u8],
    ) -> Result<(), rumqttc::ClientError> {
        let payload = lock(&self.seal).seal(topic, to, body);
        self.client
            .publish(topic, QoS::AtLeastOnce, false, payload)
            .await
    }
}

fn lock(m: &Mutex<Seal>) -> std::sync::MutexGuard<'_, Seal> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The broker's refusal of a CONNECT, said with what to do about a login.
fn refused(broker: &Broker, code: rumqttc::ConnectReturnCode) -> FleetError {
    use rumqttc::ConnectReturnCode as C;
    let why = match (code, broker.login.is_some()) {
        (C::BadUserNamePassword | C::NotAuthorized, false) => {
            ": the broker asks for a login: give its USERNAME:PASSWORD in a file (chmod 600) \
             with --broker-login FILE (dyno join) or --fleet-login FILE (dyno load)"
        }
        (C::BadUserNamePassword | C::NotAuthorized, true) => {
            ": the broker did not take the login's username and password"
        }
        _ => "",
    };
    FleetError::Unreachable {
        url: broker.to_string(),
        reason: format!("it refused the connection ({code:?}){why}"),
    }
}

impl Link {
    /// Connect as `id`, sealing under `key`, with a retained last will
    /// (`topic`, `body`) the broker publishes if this connection ends
    /// without a goodbye. Fails within `timeout` if no broker answers.
    pub async fn connect(
        broker: &Broker,
        id: &str,
        key: Key,
        will: Option<(String, Vec<u8>)>,
        timeout: Duration,
    ) -> Result<Link, FleetError> {
        let mut seal =
            Seal::new(key).map_err(|e| FleetError::Other(format!("a session id: {e}")))?;
        let mut o = MqttOptions::new(id, broker.host.clone(), broker.port);
        o.set_keep_alive(Duration::from_secs(5));
        o.set_clean_session(true);
        o.set_max_packet_size(MAX_MESSAGE, MAX_MESSAGE);
        if let Some(l) = &broker.login {
            o.set_credentials(l.username.clone(), l.password.clone());
        }
        if broker.tls {
            let config = broker
                .tls_config()
                .map_err(|reason| FleetError::Unreachable {
                    url: broker.to_string(),
                    reason,
                })?;
            o.set_transport(rumqttc::Transport::tls_with_config(
                rumqttc::TlsConfiguration::Rustls(Arc::new(config)),
            ));
        }
        if let Some((topic, body)) = will {
            let payload = seal.seal_last(&topic, &body);
            o.set_last_will(LastWill::new(topic, payload, QoS::AtLeastOnce, true));
        }
        let seal = Arc::new(Mutex::new(seal));
        let (client, mut events) = AsyncClient::new(o, 1024);
        events
            .network_options
            .set_connection_timeout(timeout.as_secs().max(1));
        let unreachable = |reason: String| FleetError::Unreachable {
            url: broker.to_string(),
            reason,
        };
        // The first event is the broker's answer to CONNECT.
        let first = tokio::time::timeout(timeout, events.poll())
            .await
            .map_err(|_| unreachable(format!("no answer within {timeout:?}")))?;
        match first {
            Ok(Event::Incoming(Packet::ConnAck(a)))
                if a.code == rumqttc::ConnectReturnCode::Success => {}
            Ok(Event::Incoming(Packet::ConnAck(a))) => return Err(refused(broker, a.code)),
            Ok(other) => return Err(unreachable(format!("it answered {other:?}"))),
            Err(rumqttc::ConnectionError::ConnectionRefused(code)) => {
                return Err(refused(broker, code));
            }
            Err(e) => return Err(unreachable(e.to_string())),
        }
        let (tx, rx) = mpsc::unbounded_channel();
        let pump = tokio::spawn(async move {
            loop {
                match events.poll().await {
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        if tx
                            .send(Incoming::Message {
                                topic: p.topic,
                                payload: p.payload.to_vec(),
                            })
                            .is_err()
                        {
                            break;
                        }
                    }
                    Ok(Event::Outgoing(rumqttc::Outgoing::Disconnect)) => {
                        // Our goodbye: flush it, then end.
                        let _ = tokio::time::timeout(Duration::from_secs(1), events.poll()).await;
                        let _ = tx.send(Incoming::Lost("disconnected".into()));
                        break;
                    }
                    Ok(_) => {}
                    Err(e) => {
                        let _ = tx.send(Incoming::Lost(e.to_string()));
                        break;
                    }
                }
            }
        });
        Ok(Link {
            client,
            rx,
            broker: broker.clone(),
            seal,
            pump,
        })
    }

    /// This side's session: what the other side addresses its messages to.
    pub fn session(&self) -> Session {
        lock(&self.seal).session()
    }

    /// A publisher for another task.
    pub fn publisher(&self) -> Publisher {
        Publisher {
            client: self.client.clone(),
            seal: self.seal.clone(),
        }
    }

    /// Open a message that came on `topic`: sealed under the key, for this
    /// session (or for anyone, where `anyone`), not a repeat or a replay.
    pub fn open(&self, topic: &str, payload: &[u8], anyone: bool) -> Result<Opened, SealError> {
        lock(&self.seal).open(topic, payload, anyone)
    }

    /// Subscribe to `topic` (at least once).
    pub async fn subscribe(&self, topic: &str) -> Result<(), FleetError> {
        self.client
            .subscribe(topic, QoS::AtLeastOnce)
            .await
            .map_err(|e| self.lost(e))
    }

    /// Seal `body` for the session `to` (`None`: for anyone) and publish
    /// it on `topic`, at least once; `retain` keeps it for later
    /// subscribers.
    pub async fn publish(
        &self,
        topic: &str,
        retain: bool,
        to: Option<Session>,
        body: &[u8],
    ) -> Result<(), FleetError> {
        let payload = lock(&self.seal).seal(topic, to, body);
        self.client
            .publish(topic, QoS::AtLeastOnce, retain, payload)
            .await
            .map_err(|e| self.lost(e))
    }

    /// Publish at most once: for clock pings, whose round trip an
    /// acknowledgement in the same direction would lengthen (a broker
    /// without TCP_NODELAY holds the next message until it is acked).
    pub async fn publish_once(
        &self,
        topic: &str,
        to: Option<Session>,
        body: &[u8],
    ) -> Result<(), FleetError> {
        let payload = lock(&self.seal).seal(topic, to, body);
        self.client
            .publish(topic, QoS::AtMostOnce, false, payload)
            .await
            .map_err(|e| self.lost(e))
    }

    fn lost(&self, e: impl fmt::Display) -> FleetError {
        FleetError::BrokerLost {
            url: self.broker.to_string(),
            reason: e.to_string(),
        }
    }

    /// Say goodbye (no last will) and wait briefly for it to go out.
    pub async fn close(self) {
        let _ = self.client.disconnect().await;
        let _ = tokio::time::timeout(Duration::from_secs(2), self.pump).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_defaults_and_bad_ones_say_why() {
        let b = Broker::parse("mqtt://10.0.0.1:1884/lab").unwrap();
        assert_eq!(
            (b.host.as_str(), b.port, b.name.as_str()),
            ("10.0.0.1", 1884, "lab")
        );
        let b = Broker::parse("mqtt://broker").unwrap();
        assert_eq!((b.port, b.name.as_str()), (1883, "dyno"));
        assert_eq!(b.to_string(), "mqtt://broker:1883/dyno");
        let b = Broker::parse("mqtt://[::1]:1883/x").unwrap();
        assert_eq!(b.host, "::1");
        assert_eq!(b.to_string(), "mqtt://[::1]:1883/x");
        let t = Broker::parse("mqtts://broker/lab").unwrap();
        assert!(t.tls);
        assert_eq!(t.to_string(), "mqtts://broker:8883/lab");
        for (bad, says) in [
            ("http://h:1883", "not an MQTT URL"),
            ("mqtt://h:0", "port"),
            ("mqtt://h:99999", "port"),
            ("mqtt://u:p@h:1883", "\"mqtt://***@h:1883\": credentials"),
            ("mqtt://h/a+b", "fleet name"),
            ("mqtt://:1883", "no host"),
        ] {
            let e = Broker::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn topics_name_their_worker() {
        let b = Broker::parse("mqtt://h/lab").unwrap();
        assert_eq!(b.state("w1"), "dyno/lab/worker/w1/state");
        assert_eq!(Broker::worker_of(&b.reports("w-2")), Some("w-2"));
        assert_eq!(Broker::worker_of("dyno/lab/other"), None);
    }

    #[tokio::test]
    async fn a_port_nobody_listens_on_is_unreachable_naming_the_url() {
        // Bind then drop: the port is closed for the connection attempt.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let b = Broker::parse(&format!("mqtt://127.0.0.1:{port}/t")).unwrap();
        let key = crate::seal::Key::from_bytes([1; crate::seal::KEY_BYTES]);
        let e = Link::connect(&b, "t", key, None, Duration::from_secs(3))
            .await
            .unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, FleetError::Unreachable { .. }), "{text}");
        assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
        assert!(text.contains("dyno setup mosquitto"), "{text}");
    }
}
