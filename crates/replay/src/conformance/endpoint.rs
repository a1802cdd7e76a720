//! The Engine endpoint itself: bound to loopback only, and refusing a call without the JWT or with a bad one.

use super::*;

/// Where the client's whole tree listens (every process below it, whatever
/// its group or session): on loopback only, with its Engine port among
/// them, and no listener appeared that dyno cannot attribute. What it
/// listens on, for the stop check.
pub(crate) fn loopback(
    run: &mut Run,
    client: &mut Running,
) -> Vec<dyno_process::sockets::Listener> {
    let found = client.node.sockets();
    let port = client.engine.port();
    let list = |ls: &[dyno_process::sockets::Listener]| {
        ls.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let open: Vec<_> = found
        .own
        .iter()
        .filter(|l| !l.is_loopback())
        .cloned()
        .collect();
    let engine = found
        .own
        .iter()
        .any(|l| l.protocol == "tcp" && l.address.port() == port);
    let processes = match found.processes {
        1 => "1 process".to_string(),
        n => format!("{n} processes"),
    };
    if !open.is_empty() {
        run.fail(
            "loopback",
            format!(
                "its tree ({processes}) listens beyond this machine on {}: give it an address \
                 flag for each (dyno starts servers on 127.0.0.1 only)",
                list(&open)
            ),
        );
    } else if !found.unattributed.is_empty() {
        run.fail(
            "loopback",
            format!(
                "listeners appeared as it started that no process dyno can see holds ({}): dyno \
                 cannot tell whether they are the client's; run it as dyno's user, in dyno's pid \
                 namespace",
                list(&found.unattributed)
            ),
        );
    } else if !engine {
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let holder = dyno_process::sockets::holder_of(address)
            .and_then(dyno_process::tree::Proc::of)
            .map_or(String::new(), |p| {
                format!(
                    " (pid {} holds it, outside the client's tree)",
                    p.describe()
                )
            });
        run.fail(
            "loopback",
            format!(
                "its Engine API answers on port {port}, but no process of its tree ({processes}) \
                 holds that port{holder}: dyno cannot attribute its sockets, so it cannot check \
                 where it listens"
            ),
        );
    } else {
        run.pass(
            "loopback",
            format!(
                "its tree ({processes}) listens on loopback only: {}",
                list(&found.own)
            ),
        );
    }
    found.own
}

/// How a call with a token not of the secret was taken.
pub(crate) enum Taken {
    /// Refused with this HTTP status.
    Status(u16),
    /// Refused with a JSON-RPC error at HTTP 200 (ethrex does this).
    Error(String),
    /// Answered.
    Answered,
}

/// A call of `engine_exchangeCapabilities` with `token` on a connection
/// of its own (`None`: no token at all). A JSON-RPC error to a call the
/// secret's token gets answered is a refusal.
pub(crate) fn taken(port: u16, token: Option<&str>) -> Result<Taken, String> {
    let mut e =
        Engine::connect(port, [0; 32], Duration::from_secs(10)).map_err(|e| e.to_string())?;
    match e.call_as("engine_exchangeCapabilities", json!([METHODS]), token) {
        Ok(_) => Ok(Taken::Answered),
        Err(EngineError::Status { status, .. }) => Ok(Taken::Status(status)),
        Err(EngineError::Rpc { message, code, .. }) => {
            Ok(Taken::Error(format!("{message} (code {code})")))
        }
        Err(other) => Err(other.to_string()),
    }
}

pub(crate) fn authentication(run: &mut Run, client: &Running) {
    run.pass(
        "jwt",
        "a token signed with the secret in {jwt}, issued now, is accepted".into(),
    );
    let port = client.engine.port();
    let other = crate::jwt::token_now(&[0x5a; 32]);
    let stale = crate::jwt::token(
        client.engine.secret(),
        crate::jwt::now().saturating_sub(300),
    );
    let unsigned = crate::jwt::unsigned_token();
    for (name, token, what, must) in [
        (
            "jwt-other",
            Some(other.as_str()),
            "a token of another secret",
            true,
        ),
        ("jwt-none", None, "a call with no token", true),
        (
            "jwt-unsigned",
            Some(unsigned.as_str()),
            "an unsigned token (alg none)",
            true,
        ),
        (
            "jwt-stale",
            Some(stale.as_str()),
            "a token issued 5 minutes ago",
            false,
        ),
    ] {
        match taken(port, token) {
            Ok(Taken::Status(status @ (401 | 403))) => {
                run.pass(name, format!("{what} is refused with HTTP {status}"));
            }
            Ok(Taken::Status(status)) => run.fail(
                name,
                format!("{what} got HTTP {status}: refuse it with 401 Unauthorized"),
            ),
            // An error that does not say it refused the token is an
            // answer: the call went through to a method that failed.
            Ok(Taken::Error(error)) if !speaks_of_auth(&error) => run.fail(
                name,
                format!(
                    "{what} got a JSON-RPC error that does not say the token was refused ({}): \
                     refuse it with HTTP 401",
                    one_line(&error)
                ),
            ),
            Ok(Taken::Error(error)) => run.add(
                name,
                Outcome::Note,
                format!(
                    "{what} is refused, but at HTTP 200 with a JSON-RPC error ({}), not HTTP 401 \
                     as geth and EthereumJS refuse it: a consensus client may take it for a failed call",
                    one_line(&error)
                ),
            ),
            Ok(Taken::Answered) if must => run.fail(
                name,
                format!("{what} was answered: anyone who reaches the port can drive the client"),
            ),
            Ok(Taken::Answered) => run.add(
                name,
                Outcome::Note,
                format!("{what} was answered (the spec says a client SHOULD keep iat within 60 s)"),
            ),
            Err(e) => run.fail(name, format!("{what}: {}", one_line(&e))),
        }
    }
}

/// True if a JSON-RPC error's message says a call was refused for its
/// token (ethrex: "Auth failed"), not that the method failed.
pub(crate) fn speaks_of_auth(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    [
        "auth",
        "jwt",
        "token",
        "unauthori",
        "forbidden",
        "permission",
        "denied",
    ]
    .iter()
    .any(|w| e.contains(w))
}
