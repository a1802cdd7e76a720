//! Credentials never reach a result: what dyno records of a command line
//! or a URL has its passwords and keys replaced by `***`.
//!
//! A run's `command_line` travels far: into the result JSON and Markdown,
//! the HTML report, `dyno history` and a team's shared database. So every
//! place that records one goes through [`command_line`], and every URL
//! shown or stored goes through [`url`].

/// What replaces a secret.
pub const MASK: &str = "***";

/// Flags whose value is a secret (a private key), masked whole.
pub const SECRET_FLAGS: &[&str] = &["--funder-key"];

/// `url` with the password (in the user part, or a `password=` query
/// parameter) replaced by `***`. A string without `://` is returned as is.
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
    match rest.split_once('?') {
        Some((main, query)) => {
            out.push_str(main);
            out.push('?');
            let masked: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}={MASK}"),
                    _ => kv.to_string(),
                })
                .collect();
            out.push_str(&masked.join("&"));
        }
        None => out.push_str(rest),
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
