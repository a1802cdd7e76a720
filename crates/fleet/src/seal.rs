//! Sealed messages: every message on the broker carries an HMAC-SHA256
//! under the fleet's key, over its topic, its sender's session, the
//! session it is for and a counter, so a broker client without the key can
//! neither command a worker nor inject a record, and a message recorded
//! earlier cannot be played again.
//!
//! A message on the wire is one header line and the body:
//!
//! ```text
//! dyno-fleet-1 FROM TO N MAC
//! {"ping":{"seq":1}}
//! ```
//!
//! `FROM` is the sender's session (16 random bytes in hex, new each time a
//! worker or an orchestrator starts), `TO` the session the message is for
//! (`-` for a worker's state, which is for anyone), `N` the sender's
//! counter (strictly increasing within its session) and `MAC` the
//! HMAC-SHA256, in hex, of the topic, `FROM`, `TO`, `N` and the body, each
//! length-prefixed. A receiver takes a message only if the MAC is right,
//! `TO` is its own session (or `-` where a state is expected), and `N` is
//! above the last it took from `FROM` on that topic. A worker's last will,
//! sealed when it connects and published by the broker when its
//! connection ends, carries the highest counter there is: it comes after
//! everything else of its session.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header's first word: the format's version.
pub const MAGIC: &str = "dyno-fleet-1";

/// The key's length in bytes (64 hex digits in its file).
pub const KEY_BYTES: usize = 32;

/// A session's id: 16 random bytes, in hex on the wire.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Session([u8; 16]);

impl Session {
    /// A new session from the kernel's random source.
    pub fn new() -> std::io::Result<Session> {
        use std::io::Read as _;
        let mut s = [0u8; 16];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut s)?;
        Ok(Session(s))
    }

    fn parse(hex: &str) -> Option<Session> {
        let bytes = alloy_primitives::hex::decode(hex).ok()?;
        Some(Session(bytes.try_into().ok()?))
    }
}

impl fmt::Display for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&alloy_primitives::hex::encode(self.0))
    }
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Session({self})")
    }
}

/// Why a fleet key file cannot be used, or a message was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SealError {
    /// The key file could not be read.
    #[error("the fleet key {path}: {reason}")]
    Key {
        /// The file.
        path: String,
        /// What is wrong, and how to fix it.
        reason: String,
    },
    /// Not a sealed message at all.
    #[error("not a sealed fleet message ({0})")]
    Unsealed(String),
    /// Sealed, but not with this key, or altered on the way.
    #[error("its seal is not the fleet key's (forged, altered, or another fleet's key)")]
    BadMac,
    /// For another session.
    #[error("it is for session {to}, not this one ({mine})")]
    NotForMe {
        /// The session it names.
        to: String,
        /// This side's.
        mine: String,
    },
    /// A counter at or below one already taken from its sender.
    #[error("it repeats or replays message {n} of session {from} (the last taken was {last})")]
    Replayed {
        /// The sender's session.
        from: String,
        /// Its counter.
        n: u64,
        /// The highest taken before.
        last: u64,
    },
}

/// The fleet's key, read from a file only its owner can read.
#[derive(Clone)]
pub struct Key([u8; KEY_BYTES]);

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(***)")
    }
}

impl Key {
    /// The key from raw bytes (tests, and a key just made).
    pub fn from_bytes(bytes: [u8; KEY_BYTES]) -> Key {
        Key(bytes)
    }

    /// A new key from the kernel's random source.
    pub fn generate() -> std::io::Result<Key> {
        use std::io::Read as _;
        let mut k = [0u8; KEY_BYTES];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut k)?;
        Ok(Key(k))
    }

    /// The key as its file holds it: 64 hex digits and a newline.
    pub fn to_file_text(&self) -> String {
        format!("{}\n", alloy_primitives::hex::encode(self.0))
    }

    /// Read the key from `path`: 64 hex digits (surrounding white space
    /// ignored), in a regular file that neither its group nor others may
    /// read or write (mode 0600 or 0400), as ssh asks of a private key.
    pub fn read(path: &Path) -> Result<Key, SealError> {
        let bad = |reason: String| SealError::Key {
            path: path.display().to_string(),
            reason,
        };
        let text = crate::login::private_text(path, 1024).map_err(|e| {
            if std::fs::metadata(path).is_err() {
                bad(format!(
                    "{e}; make one with `dyno join --new-key {}`",
                    path.display()
                ))
            } else {
                bad(e)
            }
        })?;
        let hex = text.trim();
        let bytes = alloy_primitives::hex::decode(hex)
            .ok()
            .filter(|b| b.len() == KEY_BYTES)
            .ok_or_else(|| {
                bad(format!(
                    "it must hold {} hex digits (a {KEY_BYTES}-byte key), not {} characters",
                    KEY_BYTES * 2,
                    hex.len()
                ))
            })?;
        let mut k = [0u8; KEY_BYTES];
        k.copy_from_slice(&bytes);
        Ok(Key(k))
    }

    fn mac(
        &self,
        topic: &str,
        from: Session,
        to: Option<Session>,
        n: u64,
        body: &[u8],
    ) -> Hmac<Sha256> {
        let mut m =
            <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("HMAC takes any key length");
        let to = to.map_or(Vec::new(), |s| s.0.to_vec());
        for part in [
            MAGIC.as_bytes(),
            topic.as_bytes(),
            &from.0,
            &to,
            &n.to_be_bytes(),
            body,
        ] {
            m.update(&(part.len() as u64).to_be_bytes());
            m.update(part);
        }
        m
    }
}

/// One side's seal: its session, its counter, and what it took from each
/// sender so far.
#[derive(Debug)]
pub struct Seal {
    key: Key,
    session: Session,
    sent: u64,
    taken: HashMap<(Session, String), u64>,
}

/// A message that passed its seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// The sender's session.
    pub from: Session,
    /// Its counter.
    pub n: u64,
    /// The body.
    pub body: Vec<u8>,
}

impl Seal {
    /// A seal under `key`, for a new session.
    pub fn new(key: Key) -> std::io::Result<Seal> {
        Ok(Seal::with_session(key, Session::new()?))
    }

    /// A seal under `key` for `session` (tests).
    pub fn with_session(key: Key, session: Session) -> Seal {
        Seal {
            key,
            session,
            sent: 0,
            taken: HashMap::new(),
        }
    }

    /// This side's session.
    pub fn session(&self) -> Session {
        self.session
    }

    /// Seal `body` for `topic`, for the session `to` (`None`: for anyone).
    pub fn seal(&mut self, topic: &str, to: Option<Session>, body: &[u8]) -> Vec<u8> {
        self.sent += 1;
        self.frame(topic, to, self.sent, body)
    }

    /// Seal a last will for `topic` (for anyone): the broker publishes it
    /// after everything else this session sends, so it carries the highest
    /// counter there is.
    pub fn seal_last(&mut self, topic: &str, body: &[u8]) -> Vec<u8> {
        self.frame(topic, None, u64::MAX, body)
    }

    /// The header line and the body, counter `n`.
    fn frame(&self, topic: &str, to: Option<Session>, n: u64, body: &[u8]) -> Vec<u8> {
        let mac = self
            .key
            .mac(topic, self.session, to, n, body)
            .finalize()
            .into_bytes();
        let to = to.map_or_else(|| "-".to_string(), |s| s.to_string());
        let mut out = format!(
            "{MAGIC} {} {to} {n} {}\n",
            self.session,
            alloy_primitives::hex::encode(mac)
        )
        .into_bytes();
        out.extend_from_slice(body);
        out
    }

    /// Open a message that arrived on `topic`: its seal must be the key's,
    /// it must be for this session (or for anyone, when `anyone` allows
    /// that), and its counter above the last taken from its sender. A
    /// refused message changes nothing.
    pub fn open(&mut self, topic: &str, payload: &[u8], anyone: bool) -> Result<Opened, SealError> {
        let unsealed = |why: &str| SealError::Unsealed(why.into());
        let newline = payload
            .iter()
            .take(256)
            .position(|&b| b == b'\n')
            .ok_or_else(|| unsealed("no header line"))?;
        let header = std::str::from_utf8(&payload[..newline])
            .map_err(|_| unsealed("a header that is not text"))?;
        let body = &payload[newline + 1..];
        let words: Vec<&str> = header.split(' ').collect();
        let [magic, from, to, n, mac] = words[..] else {
            return Err(unsealed("a header without its five words"));
        };
        if magic != MAGIC {
            return Err(unsealed(&format!("header {magic:?}, not {MAGIC:?}")));
        }
        let from = Session::parse(from)
            .ok_or_else(|| unsealed("a sender's session that is not 32 hex digits"))?;
        let to = match to {
            "-" => None,
            s => Some(
                Session::parse(s)
                    .ok_or_else(|| unsealed("a receiver's session that is not 32 hex digits"))?,
            ),
        };
        let n: u64 = n
            .parse()
            .map_err(|_| unsealed("a counter that is not a number"))?;
        let mac =
            alloy_primitives::hex::decode(mac).map_err(|_| unsealed("a seal that is not hex"))?;
        // Constant time: `verify_slice` compares without an early exit.
        self.key
            .mac(topic, from, to, n, body)
            .verify_slice(&mac)
            .map_err(|_| SealError::BadMac)?;
        match to {
            Some(s) if s != self.session => {
                return Err(SealError::NotForMe {
                    to: s.to_string(),
                    mine: self.session.to_string(),
                });
            }
            None if !anyone => {
                return Err(SealError::NotForMe {
                    to: "anyone".into(),
                    mine: self.session.to_string(),
                });
            }
            _ => {}
        }
        let place = (from, topic.to_string());
        let last = self.taken.get(&place).copied().unwrap_or(0);
        if n <= last {
            return Err(SealError::Replayed {
                from: from.to_string(),
                n,
                last,
            });
        }
        self.taken.insert(place, n);
        Ok(Opened {
            from,
            n,
            body: body.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (Seal, Seal) {
        let key = Key::from_bytes([7; KEY_BYTES]);
        (
            Seal::with_session(key.clone(), Session([1; 16])),
            Seal::with_session(key, Session([2; 16])),
        )
    }

    #[test]
    fn a_sealed_message_opens_once_for_its_session_on_its_topic() {
        let (mut a, mut b) = pair();
        let m = a.seal(
            "dyno/x/worker/w/cmd",
            Some(b.session()),
            br#"{"ping":{"seq":1}}"#,
        );
        let text = String::from_utf8(m.clone()).unwrap();
        assert!(text.starts_with("dyno-fleet-1 01010101"), "{text}");
        let opened = b.open("dyno/x/worker/w/cmd", &m, false).unwrap();
        assert_eq!(opened.body, br#"{"ping":{"seq":1}}"#);
        assert_eq!((opened.from, opened.n), (a.session(), 1));
        // The same message again: a repeat (MQTT's at-least-once) or a replay.
        assert!(matches!(
            b.open("dyno/x/worker/w/cmd", &m, false),
            Err(SealError::Replayed { n: 1, last: 1, .. })
        ));
        // The next one opens.
        let m2 = a.seal("dyno/x/worker/w/cmd", Some(b.session()), b"{}");
        assert_eq!(b.open("dyno/x/worker/w/cmd", &m2, false).unwrap().n, 2);
    }

    #[test]
    fn forged_altered_moved_and_misaddressed_messages_are_refused() {
        let (mut a, mut b) = pair();
        let topic = "dyno/x/worker/w/cmd";
        let m = a.seal(topic, Some(b.session()), br#"{"start":{"at_wall_ns":1}}"#);
        // Another key.
        let mut other = Seal::with_session(Key::from_bytes([8; KEY_BYTES]), Session([1; 16]));
        let forged = other.seal(topic, Some(b.session()), br#"{"start":{"at_wall_ns":1}}"#);
        assert_eq!(b.open(topic, &forged, false), Err(SealError::BadMac));
        // The body altered.
        let mut altered = m.clone();
        *altered.last_mut().unwrap() = b']';
        assert_eq!(b.open(topic, &altered, false), Err(SealError::BadMac));
        // Its counter altered (a replay dressed as new).
        let text = String::from_utf8(m.clone())
            .unwrap()
            .replacen(" 1 ", " 9 ", 1);
        assert_eq!(
            b.open(topic, text.as_bytes(), false),
            Err(SealError::BadMac)
        );
        // Moved to another worker's topic.
        assert_eq!(
            b.open("dyno/x/worker/v/cmd", &m, false),
            Err(SealError::BadMac)
        );
        // For another session.
        let mut c = Seal::with_session(Key::from_bytes([7; KEY_BYTES]), Session([3; 16]));
        assert!(matches!(
            c.open(topic, &m, false),
            Err(SealError::NotForMe { .. })
        ));
        // For anyone, where only this session's are taken.
        let state = a.seal("dyno/x/worker/w/state", None, b"{}");
        assert!(matches!(
            b.open("dyno/x/worker/w/state", &state, false),
            Err(SealError::NotForMe { .. })
        ));
        assert!(b.open("dyno/x/worker/w/state", &state, true).is_ok());
        // Plain JSON, as a broker client without the key would send it.
        assert!(matches!(
            b.open(topic, br#"{"plan":{}}"#, false),
            Err(SealError::Unsealed(_))
        ));
        // None of the refusals moved the counter: the real message opens.
        assert!(b.open(topic, &m, false).is_ok());
    }

    #[test]
    fn a_last_will_comes_after_everything_its_session_sent() {
        let (mut a, mut b) = pair();
        let state = "dyno/x/worker/w/state";
        let will = a.seal_last(state, br#"{"state":"lost"}"#);
        for _ in 0..3 {
            let m = a.seal(state, None, br#"{"state":"online"}"#);
            b.open(state, &m, true).unwrap();
        }
        assert_eq!(b.open(state, &will, true).unwrap().n, u64::MAX);
        // Once: a replay of the will is refused.
        assert!(matches!(
            b.open(state, &will, true),
            Err(SealError::Replayed { .. })
        ));
    }

    #[test]
    fn a_key_file_must_be_its_owners_alone_and_hold_64_hex_digits() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fleet.key");
        let write = |text: &str, mode: u32| {
            std::fs::write(&path, text).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        };
        let key = Key::from_bytes([0xab; KEY_BYTES]);
        write(&key.to_file_text(), 0o600);
        let read = Key::read(&path).unwrap();
        assert_eq!(read.0, key.0);
        write(&key.to_file_text(), 0o644);
        let e = Key::read(&path).unwrap_err().to_string();
        assert!(e.contains("mode 0644") && e.contains("chmod 600"), "{e}");
        write("abcd\n", 0o600);
        let e = Key::read(&path).unwrap_err().to_string();
        assert!(e.contains("64 hex digits"), "{e}");
        let e = Key::read(&dir.path().join("missing"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("--new-key"), "{e}");
        assert_eq!(format!("{key:?}"), "Key(***)", "a key is never printed");
    }
}
