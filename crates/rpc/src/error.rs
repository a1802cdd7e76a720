//! [`RpcError`] and its load-accounting [`ErrorClass`].

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// Everything that can go wrong talking JSON-RPC over HTTP.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RpcError {
    /// The endpoint URL could not be parsed or is not supported.
    #[error("invalid RPC endpoint {url:?}: {reason}")]
    InvalidEndpoint {
        /// The URL as given.
        url: String,
        /// What is wrong and how to fix it.
        reason: String,
    },
    /// A TCP connection to the endpoint could not be established.
    #[error(
        "cannot connect to {url}: {reason}; check that the node is running and serves \
         HTTP JSON-RPC at that address (geth: --http --http.addr --http.port; anvil and \
         hardhat listen on 8545 by default)"
    )]
    Connect {
        /// The endpoint URL.
        url: Arc<str>,
        /// The operating system's (or resolver's) reason.
        reason: String,
    },
    /// An established connection failed: reset, closed mid-response, or an
    /// I/O error while sending or receiving.
    #[error("connection to {url} failed: {reason}")]
    Connection {
        /// The endpoint URL.
        url: Arc<str>,
        /// What happened.
        reason: String,
    },
    /// No complete response arrived within the request timeout.
    #[error("request to {url} timed out after {after:?} (ClientOptions::request_timeout)")]
    Timeout {
        /// The endpoint URL.
        url: Arc<str>,
        /// The timeout that expired.
        after: Duration,
    },
    /// The server answered with a non-success HTTP status and no JSON-RPC
    /// error object.
    #[error("HTTP status {status} from {url}: {body}")]
    HttpStatus {
        /// The endpoint URL.
        url: Arc<str>,
        /// The HTTP status code.
        status: u16,
        /// The start of the response body (lossy UTF-8, at most 256 bytes).
        body: String,
    },
    /// The response body is larger than `ClientOptions::max_response_bytes`.
    #[error(
        "response body from {url} exceeds the limit of {limit} bytes \
         (ClientOptions::max_response_bytes): {}; raise the limit or ask for less data",
        fmt_size(*so_far, *declared)
    )]
    BodyTooLarge {
        /// The endpoint URL.
        url: Arc<str>,
        /// The configured limit in bytes.
        limit: usize,
        /// Bytes received when the limit was crossed (0 when `declared` made
        /// the client refuse before reading).
        so_far: usize,
        /// The size the server announced in `Content-Length`, when that was
        /// already over the limit.
        declared: Option<u64>,
    },
    /// The response was not valid HTTP or not a valid JSON-RPC response.
    #[error("invalid response: {reason}")]
    InvalidResponse {
        /// What is wrong with it.
        reason: String,
    },
    /// The server answered with a JSON-RPC error object (whatever the HTTP
    /// status, including 200).
    #[error("JSON-RPC error {code}: {message}{}", fmt_data(data))]
    Rpc {
        /// The JSON-RPC error code, e.g. -32000.
        code: i64,
        /// The error message, e.g. `nonce too low: next nonce 5, tx nonce 3`.
        message: String,
        /// The optional `data` member.
        data: Option<serde_json::Value>,
    },
}

fn fmt_size(so_far: usize, declared: Option<u64>) -> String {
    match declared {
        Some(n) => format!("the server announced {n} bytes (Content-Length), 0 read"),
        None => format!("{so_far} bytes received so far"),
    }
}

fn fmt_data(data: &Option<serde_json::Value>) -> String {
    match data {
        None => String::new(),
        Some(d) => format!(" (data: {d})"),
    }
}

impl RpcError {
    /// The class of this error for load accounting.
    pub fn class(&self) -> ErrorClass {
        match self {
            RpcError::InvalidEndpoint { .. } => ErrorClass::InvalidEndpoint,
            RpcError::Connect { .. } | RpcError::Connection { .. } => ErrorClass::Connection,
            RpcError::Timeout { .. } => ErrorClass::Timeout,
            RpcError::HttpStatus { .. } => ErrorClass::HttpStatus,
            RpcError::BodyTooLarge { .. } | RpcError::InvalidResponse { .. } => {
                ErrorClass::InvalidResponse
            }
            RpcError::Rpc { code, message, .. } => classify_rpc(*code, message),
        }
    }

    pub(crate) fn invalid(reason: impl Into<String>) -> RpcError {
        RpcError::InvalidResponse {
            reason: reason.into(),
        }
    }
}

/// Why a request failed, coarse enough to count in a load report.
///
/// The node-side classes are derived from the JSON-RPC error message as geth,
/// reth, anvil (foundry), hardhat (and, where cheap, Nethermind/Erigon) word
/// it; see [`classify_rpc`]. [`ErrorClass::as_str`] gives stable snake_case
/// names for CSV and JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorClass {
    /// The transaction nonce is below the account's next nonce.
    NonceTooLow,
    /// The transaction nonce leaves a gap the pool will not queue.
    NonceTooHigh,
    /// The same transaction was already submitted.
    AlreadyKnown,
    /// A transaction with the same nonce is pooled and the new one does not
    /// pay enough more to replace it.
    ReplacementUnderpriced,
    /// The fee is below the pool minimum or the max fee is below the base fee.
    Underpriced,
    /// The sender cannot pay gas * price + value.
    InsufficientFunds,
    /// The node's transaction pool is full.
    TxpoolFull,
    /// The transaction's gas limit exceeds the block gas limit, or the
    /// per-transaction cap of EIP-7825 (2^24 since Osaka).
    ExceedsBlockGasLimit,
    /// The gas limit is below the transaction's intrinsic gas.
    IntrinsicGasTooLow,
    /// Any other JSON-RPC error object.
    RpcOther,
    /// A non-success HTTP status without a JSON-RPC error object.
    HttpStatus,
    /// No response within the request timeout.
    Timeout,
    /// Connecting failed, or the connection was reset or closed.
    Connection,
    /// Malformed HTTP or JSON-RPC, or a response body over the size limit.
    InvalidResponse,
    /// The endpoint URL is invalid (a configuration error, not a load result).
    InvalidEndpoint,
}

impl ErrorClass {
    /// Every class, in declaration order.
    pub const ALL: [ErrorClass; 15] = [
        ErrorClass::NonceTooLow,
        ErrorClass::NonceTooHigh,
        ErrorClass::AlreadyKnown,
        ErrorClass::ReplacementUnderpriced,
        ErrorClass::Underpriced,
        ErrorClass::InsufficientFunds,
        ErrorClass::TxpoolFull,
        ErrorClass::ExceedsBlockGasLimit,
        ErrorClass::IntrinsicGasTooLow,
        ErrorClass::RpcOther,
        ErrorClass::HttpStatus,
        ErrorClass::Timeout,
        ErrorClass::Connection,
        ErrorClass::InvalidResponse,
        ErrorClass::InvalidEndpoint,
    ];

    /// The stable snake_case name, used in CSV and JSON output.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorClass::NonceTooLow => "nonce_too_low",
            ErrorClass::NonceTooHigh => "nonce_too_high",
            ErrorClass::AlreadyKnown => "already_known",
            ErrorClass::ReplacementUnderpriced => "replacement_underpriced",
            ErrorClass::Underpriced => "underpriced",
            ErrorClass::InsufficientFunds => "insufficient_funds",
            ErrorClass::TxpoolFull => "txpool_full",
            ErrorClass::ExceedsBlockGasLimit => "exceeds_block_gas_limit",
            ErrorClass::IntrinsicGasTooLow => "intrinsic_gas_too_low",
            ErrorClass::RpcOther => "rpc_other",
            ErrorClass::HttpStatus => "http_status",
            ErrorClass::Timeout => "timeout",
            ErrorClass::Connection => "connection",
            ErrorClass::InvalidResponse => "invalid_response",
            ErrorClass::InvalidEndpoint => "invalid_endpoint",
        }
    }

    /// Whether the class is a transport failure (no JSON-RPC answer at all)
    /// rather than the node rejecting the request.
    pub const fn is_transport(self) -> bool {
        matches!(
            self,
            ErrorClass::HttpStatus
                | ErrorClass::Timeout
                | ErrorClass::Connection
                | ErrorClass::InvalidResponse
                | ErrorClass::InvalidEndpoint
        )
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown [`ErrorClass`] name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown error class {0:?}; expected one of the ErrorClass::as_str names, e.g. nonce_too_low"
)]
pub struct UnknownErrorClass(pub String);

impl FromStr for ErrorClass {
    type Err = UnknownErrorClass;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorClass::ALL
            .into_iter()
            .find(|c| c.as_str() == s)
            .ok_or_else(|| UnknownErrorClass(s.to_owned()))
    }
}

impl serde::Serialize for ErrorClass {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for ErrorClass {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Classifies a JSON-RPC error object by its code and message.
///
/// Matching is on lower-cased message text, in an order that keeps the
/// overlapping phrasings apart ("replacement transaction underpriced" before
/// "transaction underpriced"). Wordings covered, among others:
///
/// | class | geth / reth | anvil | hardhat |
/// |---|---|---|---|
/// | nonce too low | `nonce too low: next nonce 5, tx nonce 3` | `nonce too low` | `Nonce too low. Expected nonce to be 5 but got 3.` |
/// | nonce too high | `nonce too high` | `Nonce too high` | `Nonce too high. Expected nonce to be 0 but got 5. …` |
/// | already known | `already known` | `transaction already imported` | `Known transaction: 0x…` |
/// | replacement underpriced | `replacement transaction underpriced` | `… insufficient gas price to replace existing transaction` | `Replacement transaction underpriced. …` |
/// | underpriced | `transaction underpriced: tip needed 1, tip permitted 0`, `max fee per gas less than block base fee: …` | `max fee per gas less than block base fee` | `Transaction maxFeePerGas (1) is too low for the next block, …` |
/// | insufficient funds | `insufficient funds for gas * price + value: …` | `Insufficient funds for gas * price + value` | `Sender doesn't have enough funds to send tx. …` |
/// | txpool full | `txpool is full` | | |
/// | exceeds block gas limit | `exceeds block gas limit`, `transaction gas limit too high (cap: 16777216, tx: …)` | `intrinsic gas too high -- tx.gas_limit > env.block.gas_limit` | `Transaction gas limit is 31000000 and exceeds block gas limit of 30000000`, `… exceeds transaction gas cap of 16777216` |
/// | intrinsic gas too low | `intrinsic gas too low: gas 1, minimum needed 21000` | `intrinsic gas too low` | `Transaction requires at least 21000 gas but got 20000` |
///
/// The message decides: the nodes above all use generic codes (`-32000`,
/// `-32003`, `-32603`) for every one of these rejections, so the code cannot
/// tell them apart. It is taken so that callers need not care, and any code
/// whose message matches none of the phrasings is [`ErrorClass::RpcOther`].
pub fn classify_rpc(code: i64, message: &str) -> ErrorClass {
    let _ = code;
    let m = message.to_ascii_lowercase();
    let has = |needles: &[&str]| needles.iter().any(|n| m.contains(n));
    if has(&[
        "replacement transaction underpriced",
        "replacement underpriced",
        "insufficient gas price to replace",
        "replacement fee too low",
        "replacefeetoolow",
    ]) {
        ErrorClass::ReplacementUnderpriced
    } else if has(&[
        "already known",
        "known transaction",
        "already imported",
        "alreadyknown",
        "already in the pool",
        "existing tx with same hash",
    ]) {
        ErrorClass::AlreadyKnown
    } else if has(&["nonce too low", "nonce is too low", "oldnonce"]) {
        ErrorClass::NonceTooLow
    } else if has(&["nonce too high", "nonce is too high", "noncegap"]) {
        ErrorClass::NonceTooHigh
    } else if has(&[
        "insufficient funds",
        "enough funds",
        "insufficientfunds",
        "insufficient balance",
    ]) {
        ErrorClass::InsufficientFunds
    } else if has(&[
        "txpool is full",
        "transaction pool is full",
        "pool is full",
        "txpool full",
    ]) {
        ErrorClass::TxpoolFull
    } else if has(&[
        "exceeds block gas limit",
        "exceeds the block gas limit",
        "greater than the block gas limit",
        "gas_limit > env.block.gas_limit",
        "intrinsic gas too high",
        "transaction gas limit too high",
        "exceeds transaction gas cap",
        "gaslimitexceeded",
    ]) {
        ErrorClass::ExceedsBlockGasLimit
    } else if has(&["intrinsic gas too low", "intrinsicgastoolow"])
        || (m.contains("requires at least") && m.contains("gas but got"))
    {
        ErrorClass::IntrinsicGasTooLow
    } else if has(&[
        "transaction underpriced",
        "less than block base fee",
        "is too low for the next block",
        "gas price below minimum",
        "gas tip cap below minimum",
        "gas price too low",
        "gas price is too low",
        "fee cap less than block base fee",
        "feetoolow",
        "fee too low",
        "underpriced",
    ]) {
        ErrorClass::Underpriced
    } else {
        ErrorClass::RpcOther
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_are_stable_and_round_trip() {
        let names: Vec<&str> = ErrorClass::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            names,
            [
                "nonce_too_low",
                "nonce_too_high",
                "already_known",
                "replacement_underpriced",
                "underpriced",
                "insufficient_funds",
                "txpool_full",
                "exceeds_block_gas_limit",
                "intrinsic_gas_too_low",
                "rpc_other",
                "http_status",
                "timeout",
                "connection",
                "invalid_response",
                "invalid_endpoint",
            ]
        );
        for c in ErrorClass::ALL {
            assert_eq!(c.as_str().parse::<ErrorClass>().unwrap(), c);
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{c}\""));
            assert_eq!(serde_json::from_str::<ErrorClass>(&json).unwrap(), c);
        }
        assert!("nope".parse::<ErrorClass>().is_err());
    }

    #[test]
    fn transport_errors_classify() {
        let url: Arc<str> = "http://127.0.0.1:1/".into();
        let cases = [
            (
                RpcError::Connect {
                    url: url.clone(),
                    reason: "refused".into(),
                },
                ErrorClass::Connection,
            ),
            (
                RpcError::Connection {
                    url: url.clone(),
                    reason: "reset".into(),
                },
                ErrorClass::Connection,
            ),
            (
                RpcError::Timeout {
                    url: url.clone(),
                    after: Duration::from_secs(1),
                },
                ErrorClass::Timeout,
            ),
            (
                RpcError::HttpStatus {
                    url: url.clone(),
                    status: 503,
                    body: String::new(),
                },
                ErrorClass::HttpStatus,
            ),
            (
                RpcError::BodyTooLarge {
                    url,
                    limit: 1,
                    so_far: 2,
                    declared: None,
                },
                ErrorClass::InvalidResponse,
            ),
            (RpcError::invalid("x"), ErrorClass::InvalidResponse),
        ];
        for (e, c) in cases {
            assert_eq!(e.class(), c, "{e}");
            assert!(c.is_transport());
        }
    }
}
