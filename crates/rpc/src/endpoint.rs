//! [`Endpoint`]: a parsed `http://` JSON-RPC URL.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::error::RpcError;

/// A parsed `http://host[:port][/path][?query]` JSON-RPC endpoint.
///
/// Only plain HTTP is supported: dyno talks to nodes on loopback or on a
/// private benchmark network, where TLS would only add noise to latency
/// measurements. `https://` URLs are rejected with an error that says so.
///
/// ```
/// use dyno_rpc::Endpoint;
/// let ep: Endpoint = "http://127.0.0.1:8545".parse().unwrap();
/// assert_eq!(ep.host(), "127.0.0.1");
/// assert_eq!(ep.port(), 8545);
/// assert_eq!(ep.path(), "/");
/// assert_eq!(ep.to_string(), "http://127.0.0.1:8545/");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Endpoint {
    /// Host as written, without IPv6 brackets.
    host: String,
    /// TCP port (80 when the URL has none).
    port: u16,
    /// Whether the URL spelt the port out (affects the `Host` header only).
    explicit_port: bool,
    /// Path and query, always starting with `/`.
    path: String,
    /// Normalised URL, used in messages: its secrets masked
    /// (`dyno_redact::url`: a `?token=`, a path key).
    url: Arc<str>,
}

impl Endpoint {
    /// Parses an `http://` URL. See the type documentation for the accepted
    /// form; every error names the URL and says how to fix it.
    pub fn parse(url: &str) -> Result<Endpoint, RpcError> {
        let bad = |reason: String| RpcError::InvalidEndpoint {
            url: dyno_redact::url(url),
            reason,
        };
        let trimmed = url.trim();
        if trimmed.is_empty() {
            return Err(bad(
                "the URL is empty; write it like http://127.0.0.1:8545".to_owned()
            ));
        }
        let Some((scheme, rest)) = trimmed.split_once("://") else {
            return Err(bad(format!(
                "the URL has no scheme; write it like http://{trimmed}"
            )));
        };
        if scheme.eq_ignore_ascii_case("https") {
            return Err(bad(format!(
                "https is not supported (dyno's RPC client is plain HTTP/1.1 for nodes on \
                 loopback or a private network); use http://{rest} and expose the node's \
                 HTTP port, or put a local TLS-terminating proxy in front of it"
            )));
        }
        if scheme.eq_ignore_ascii_case("ws") || scheme.eq_ignore_ascii_case("wss") {
            return Err(bad(format!(
                "WebSocket endpoints are not supported; use the node's HTTP JSON-RPC \
                 endpoint, e.g. http://{rest} (geth: --http, default port 8545)"
            )));
        }
        if !scheme.eq_ignore_ascii_case("http") {
            return Err(bad(format!(
                "unsupported scheme {scheme:?}; use http://, e.g. http://{rest}"
            )));
        }
        if rest.contains('#') {
            return Err(bad(
                "the URL has a #fragment, which HTTP never sends; remove it".to_owned(),
            ));
        }
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'?' => (&rest[..i], format!("/{}", &rest[i..])),
            Some(i) => (&rest[..i], rest[i..].to_owned()),
            None => (rest, "/".to_owned()),
        };
        if path.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(bad(
                "the path contains spaces or control characters; percent-encode them".to_owned(),
            ));
        }
        if authority.contains('@') {
            return Err(bad(
                "credentials in the URL (user:password@) are not supported; remove them \
                 (dyno targets unauthenticated HTTP JSON-RPC endpoints)"
                    .to_owned(),
            ));
        }
        if authority.is_empty() {
            return Err(bad(
                "the URL has no host; write it like http://127.0.0.1:8545".to_owned(),
            ));
        }
        let (host, port_str) = if let Some(after) = authority.strip_prefix('[') {
            let Some(end) = after.find(']') else {
                return Err(bad(
                    "unterminated IPv6 address: close it with ']', e.g. http://[::1]:8545"
                        .to_owned(),
                ));
            };
            let host = &after[..end];
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(bad(format!(
                    "[{host}] is not an IPv6 address; write it like http://[::1]:8545"
                )));
            }
            let tail = &after[end + 1..];
            match tail.strip_prefix(':') {
                Some(p) => (host, Some(p)),
                None if tail.is_empty() => (host, None),
                None => {
                    return Err(bad(format!(
                        "unexpected {tail:?} after the IPv6 address; write it like \
                         http://[::1]:8545"
                    )));
                }
            }
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(bad(
                "the URL has no host; write it like http://127.0.0.1:8545".to_owned(),
            ));
        }
        if !authority.starts_with('[')
            && !host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_')
        {
            return Err(bad(format!(
                "{host:?} is not a valid host name; use a name or an IP address, e.g. \
                 http://127.0.0.1:8545 (IPv6 in brackets: http://[::1]:8545)"
            )));
        }
        let (port, explicit_port) = match port_str {
            None => (80, false),
            Some("") => {
                return Err(bad(format!(
                    "the port after ':' is empty; write it like http://{host}:8545"
                )));
            }
            Some(p) => match p.parse::<u16>() {
                Ok(0) | Err(_) => {
                    return Err(bad(format!(
                        "{p:?} is not a valid port (1-65535); write it like http://{host}:8545"
                    )));
                }
                Ok(n) => (n, true),
            },
        };
        let host = host.to_owned();
        let url = if host.contains(':') {
            format!("http://[{host}]:{port}{path}")
        } else {
            format!("http://{host}:{port}{path}")
        };
        Ok(Endpoint {
            host,
            port,
            explicit_port,
            path,
            url: dyno_redact::url(&url).into(),
        })
    }

    /// Builds an endpoint for `http://{addr}/`, e.g. a local listener's address.
    pub fn from_socket_addr(addr: std::net::SocketAddr) -> Endpoint {
        let host = addr.ip().to_string();
        let url = format!("http://{addr}/");
        Endpoint {
            host,
            port: addr.port(),
            explicit_port: true,
            path: "/".to_owned(),
            url: url.into(),
        }
    }

    /// The host name or IP address (IPv6 without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The TCP port (80 when the URL had none).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The request target: path and query, always starting with `/`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The normalised URL (`http://host:port/path`), as used in messages,
    /// with its secrets masked (`?password=***`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The value of the `Host` header for requests to this endpoint.
    pub(crate) fn host_header(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.explicit_port {
            format!("{host}:{}", self.port)
        } else {
            host
        }
    }

    /// The normalised URL as a shared string, for error values.
    pub(crate) fn url_arc(&self) -> Arc<str> {
        self.url.clone()
    }
}

impl FromStr for Endpoint {
    type Err = RpcError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Endpoint::parse(s)
    }
}

/// `url` with any `user:password@` replaced by `***@`, for messages: dyno
/// refuses credentials in an RPC URL, and must not print them doing so.
impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(url: &str) -> String {
        Endpoint::parse(url).unwrap_err().to_string()
    }

    /// A secret in the query reached every RPC error (printed on stderr)
    /// before: `--rpc http://h:8545/?password=PW`.
    #[test]
    fn messages_never_show_a_secret_of_the_url() {
        let e = Endpoint::parse("http://127.0.0.1:8545/rpc?password=PW1&token=T1&x=1").unwrap();
        assert_eq!(
            e.url(),
            "http://127.0.0.1:8545/rpc?password=***&token=***&x=1"
        );
        assert_eq!(
            e.path(),
            "/rpc?password=PW1&token=T1&x=1",
            "the request keeps it"
        );
        let bad = err("http://u:PW2@127.0.0.1:8545/?password=PW3");
        assert!(!bad.contains("PW2") && !bad.contains("PW3"), "{bad}");
    }

    #[test]
    fn parses_common_forms() {
        let e = Endpoint::parse("http://localhost:8545").unwrap();
        assert_eq!((e.host(), e.port(), e.path()), ("localhost", 8545, "/"));
        assert_eq!(e.host_header(), "localhost:8545");
        let e = Endpoint::parse("HTTP://node.example:80/rpc/v1?key=1").unwrap();
        assert_eq!(e.path(), "/rpc/v1?key=1");
        let e = Endpoint::parse("http://10.0.0.1").unwrap();
        assert_eq!((e.port(), e.host_header().as_str()), (80, "10.0.0.1"));
        let e = Endpoint::parse("http://[::1]:8545/").unwrap();
        assert_eq!((e.host(), e.port()), ("::1", 8545));
        assert_eq!(e.host_header(), "[::1]:8545");
        assert_eq!(e.to_string(), "http://[::1]:8545/");
        let e = Endpoint::parse("http://h:1?x").unwrap();
        assert_eq!(e.path(), "/?x");
        let e: Endpoint = " http://127.0.0.1:8545 ".parse().unwrap();
        assert_eq!(e.url(), "http://127.0.0.1:8545/");
    }

    #[test]
    fn errors_name_the_url_and_the_fix() {
        let m = err("https://127.0.0.1:8545");
        assert!(m.contains("https://127.0.0.1:8545"), "{m}");
        assert!(m.contains("use http://127.0.0.1:8545"), "{m}");
        let m = err("127.0.0.1:8545");
        assert!(
            m.contains("no scheme") && m.contains("http://127.0.0.1:8545"),
            "{m}"
        );
        let m = err("ws://127.0.0.1:8546");
        assert!(m.contains("WebSocket"), "{m}");
        let m = err("ftp://x");
        assert!(m.contains("unsupported scheme"), "{m}");
        let m = err("http://127.0.0.1:99999");
        assert!(m.contains("\"99999\" is not a valid port"), "{m}");
        let m = err("http://127.0.0.1:0");
        assert!(m.contains("not a valid port"), "{m}");
        let m = err("http://127.0.0.1:");
        assert!(m.contains("port after ':' is empty"), "{m}");
        let m = err("http://:8545");
        assert!(m.contains("no host"), "{m}");
        let m = err("http://");
        assert!(m.contains("no host"), "{m}");
        let m = err("http://[::1:8545");
        assert!(m.contains("unterminated IPv6"), "{m}");
        let m = err("http://[zz]:1");
        assert!(m.contains("not an IPv6 address"), "{m}");
        let m = err("http://u:SECRET@h:1");
        assert!(m.contains("credentials"), "{m}");
        assert!(
            !m.contains("SECRET"),
            "the refusal prints the password: {m}"
        );
        assert!(m.contains("http://u:***@h:1"), "{m}");
        let m = err("http://h:1/#x");
        assert!(m.contains("fragment"), "{m}");
        let m = err("http://ho st:1");
        assert!(m.contains("not a valid host name"), "{m}");
        let m = err("");
        assert!(m.contains("empty"), "{m}");
        for url in ["https://a", "a:1", "http://a:b"] {
            assert!(err(url).contains(&format!("{url:?}")), "{}", err(url));
        }
    }
}
