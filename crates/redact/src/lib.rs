//! Credentials never reach a result or a message: what dyno records or
//! prints of a command line or a URL has its passwords, tokens and keys
//! replaced by `***`.
//!
//! A run's `command_line` travels far: into the result JSON and Markdown,
//! the HTML report, `dyno history` and a team's shared database; a URL
//! also reaches a result's notes, stderr and the errors of an RPC or a
//! metrics scrape. So every place that records a command line goes
//! through [`command_line`], and every URL shown or stored through
//! [`url`]: one rule, here.
//!
//! The rule for a URL: the password of its user part; the value of a
//! query parameter named for a secret ([`SECRET_PARAMS`]: `password`,
//! `token`, `api_key`, `key`, ...); and a path segment that looks like a
//! key ([`looks_like_key`]: a provider's `/v3/KEY`).

/// What replaces a secret.
pub const MASK: &str = "***";

/// Flags whose value is a secret (a private key), masked whole.
pub const SECRET_FLAGS: &[&str] = &["--funder-key"];

/// Query parameters whose value is a secret, compared without case and
/// without `-` and `_` (`api_key`, `API-Key` and `apikey` alike).
pub const SECRET_PARAMS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "pass",
    "token",
    "accesstoken",
    "authtoken",
    "apikey",
    "key",
    "secret",
    "clientsecret",
    "auth",
    "authorization",
    "jwt",
    "signature",
    "sig",
    "credential",
    "credentials",
];

fn secret_param(name: &str) -> bool {
    let plain: String = name
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    SECRET_PARAMS.contains(&plain.as_str())
}

/// True for a path segment that looks like a key or token (a provider's
/// `https://mainnet.example/v3/KEY`): at least 16 characters, all letters,
/// digits, `-` or `_`, with at least one letter and one digit. Names of
/// paths (`debug`, `metrics`, `prometheus`, `v3`) are not.
pub fn looks_like_key(segment: &str) -> bool {
    segment.len() >= 16
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && segment.chars().any(|c| c.is_ascii_digit())
        && segment.chars().any(|c| c.is_ascii_alphabetic())
}

/// `path` (what follows the host, from its `/`) with each segment that
/// [`looks_like_key`] replaced by `***`.
fn mask_path(path: &str) -> String {
    path.split('/')
        .map(|seg| if looks_like_key(seg) { MASK } else { seg })
        .collect::<Vec<_>>()
        .join("/")
}

/// `url` with its secrets replaced by `***`: the password of the user
/// part, the value of a secret query parameter ([`SECRET_PARAMS`]) and a
/// path segment that [`looks_like_key`]. A string without `://` is
/// returned as is.
pub fn url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    // The user part ends at the last '@' before the path: a password may
    // hold '/', '?' or '@' unencoded. (An '@' further on, in the query,
    // masks more than the password: never less.)
    let (user, rest) = match rest.rfind('@') {
        Some(at) => match rest[..at].split_once(':') {
            Some((name, _password)) => (format!("{name}:{MASK}@"), &rest[at + 1..]),
            None => (rest[..=at].to_string(), &rest[at + 1..]),
        },
        None => (String::new(), rest),
    };
    let mut out = format!("{scheme}://{user}");
    let (main, query) = match rest.split_once('?') {
        Some((main, query)) => (main, Some(query)),
        None => (rest, None),
    };
    match main.split_once('/') {
        Some((host, path)) => {
            out.push_str(host);
            out.push('/');
            out.push_str(&mask_path(path));
        }
        None => out.push_str(main),
    }
    if let Some(query) = query {
        out.push('?');
        let masked: Vec<String> = query
            .split('&')
            .map(|kv| match kv.split_once('=') {
                Some((k, _)) if secret_param(k) => format!("{k}={MASK}"),
                _ => kv.to_string(),
            })
            .collect();
        out.push_str(&masked.join("&"));
    }
    out
}

/// One argument with every URL in it masked: the argument may be a URL, a
/// `--flag=URL`, or a shell command line holding URLs (`--node-cmd`).
pub fn text(arg: &str) -> String {
    if !arg.contains("://") {
        return arg.to_string();
    }
    let mut out = String::with_capacity(arg.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if let Some(at) = word.find("://") {
            // The scheme is the run of letters, digits, '+', '-' and '.'
            // just before "://"; what comes before it (`--store=`) stays.
            let start = word[..at]
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || "+-.".contains(c)))
                .map_or(0, |i| i + 1);
            out.push_str(&word[..start]);
            out.push_str(&url(&word[start..]));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in arg.chars() {
        if c.is_whitespace() || c == '"' || c == '\'' {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A command line as it may be recorded: URLs masked in every argument,
/// and the values of [`SECRET_FLAGS`] (`--funder-key KEY` and
/// `--funder-key=KEY`) replaced whole.
pub fn command_line<I, S>(args: I) -> Vec<String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = Vec::new();
    let mut secret_next = false;
    for arg in args {
        let arg = arg.as_ref();
        if secret_next {
            out.push(MASK.to_string());
            secret_next = false;
            continue;
        }
        if SECRET_FLAGS.contains(&arg) {
            secret_next = true;
            out.push(arg.to_string());
            continue;
        }
        match SECRET_FLAGS
            .iter()
            .find(|f| arg.strip_prefix(**f).is_some_and(|r| r.starts_with('=')))
        {
            Some(flag) => out.push(format!("{flag}={MASK}")),
            None => out.push(text(arg)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_passwords() {
        assert_eq!(
            url("postgres://dyno:s3cr%40t@127.0.0.1:5432/dyno_test?sslmode=disable"),
            "postgres://dyno:***@127.0.0.1:5432/dyno_test?sslmode=disable"
        );
        assert_eq!(
            url("postgresql://a:b:c@h/d?user=x&password=y&x=1"),
            "postgresql://a:***@h/d?user=x&password=***&x=1"
        );
        assert_eq!(url("postgres://h/d"), "postgres://h/d");
        assert_eq!(url("postgres://u@h"), "postgres://u@h");
        assert_eq!(url("postgres://u:p@h"), "postgres://u:***@h");
        // An '@' in the password (unencoded) still hides all of it.
        assert_eq!(url("postgres://u:p@ss@h/d"), "postgres://u:***@h/d");
        assert_eq!(url("postgres://u:p/w?x@h/d"), "postgres://u:***@h/d");
        assert_eq!(url("not a url"), "not a url");
    }

    /// The old rule masked only a user's password and `password=`.
    #[test]
    fn tokens_api_keys_and_path_keys_are_masked_too() {
        assert_eq!(
            url("https://mainnet.infura.io/v3/9aa3d95b3bc440fa88ea12eaa4456161"),
            "https://mainnet.infura.io/v3/***"
        );
        assert_eq!(
            url("https://eth-mainnet.g.alchemy.com/v2/aB3dE5fG7hJ9kL1mN3pQ/"),
            "https://eth-mainnet.g.alchemy.com/v2/***/"
        );
        assert_eq!(
            url(
                "http://u:PW@127.0.0.1:6060/debug/metrics/prometheus?password=PW2&Token=T0&api-key=K1&x=1"
            ),
            "http://u:***@127.0.0.1:6060/debug/metrics/prometheus?password=***&Token=***&api-key=***&x=1"
        );
        assert_eq!(
            url("http://h/rpc?API_KEY=abc&key=k"),
            "http://h/rpc?API_KEY=***&key=***"
        );
        // Paths and parameters that are not secrets stay.
        for kept in [
            "http://127.0.0.1:6060/debug/metrics/prometheus",
            "http://127.0.0.1:8545/?chain=1&keyspace=main",
            "https://host/v3/short123",
            "https://host/a-long-name-without-digits",
        ] {
            assert_eq!(url(kept), kept);
        }
    }

    #[test]
    fn command_lines_lose_passwords_and_keys() {
        let masked = command_line([
            "dyno",
            "run",
            "--store",
            "postgres://u:PW1@h/db",
            "--store=mysql://u:PW2@h/db",
            "--rpc",
            "http://admin:PW3@127.0.0.1:8545",
            "--node-cmd",
            "reth node --peer 'enode://x:PW4@10.0.0.1:30303' --http",
            "--funder-key",
            "0xKEY1",
            "--funder-key=0xKEY2",
            "hash",
        ]);
        let joined = masked.join(" ");
        for secret in ["PW1", "PW2", "PW3", "PW4", "KEY1", "KEY2"] {
            assert!(!joined.contains(secret), "{secret} in {joined}");
        }
        assert_eq!(masked[3], "postgres://u:***@h/db");
        assert_eq!(masked[4], "--store=mysql://u:***@h/db");
        assert_eq!(
            masked[8],
            "reth node --peer 'enode://x:***@10.0.0.1:30303' --http"
        );
        assert_eq!(masked[10], "***");
        assert_eq!(masked[11], "--funder-key=***");
        assert_eq!(masked[12], "hash");
        // Nothing else changes.
        assert_eq!(
            command_line(["dyno", "run", "--quick", "http://127.0.0.1:8545"]),
            ["dyno", "run", "--quick", "http://127.0.0.1:8545"]
        );
    }
}
