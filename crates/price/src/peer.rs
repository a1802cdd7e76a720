//! A peer's per-client table (`dyno gas --blocks --compare FILE.csv`) set
//! beside dyno's figures, each relative to its own ECRECOVER.

use crate::Error;
use crate::blocks::distinct;

/// One row of a peer's per-client table (`--compare FILE.csv`).
#[derive(Debug, Clone, PartialEq)]
pub struct PeerRow {
    pub operation: String,
    pub parameter: String,
    pub client: String,
    pub gas: f64,
    /// Its line in the file.
    pub line: usize,
}

/// The ECRECOVER row a peer's figures are relative to.
const ANCHOR_OP: &str = "ecrecover";

/// Read a peer's table: CSV with a header naming `operation`, `parameter`,
/// `client` and `gas` (in any order, any case; other columns ignored), one
/// row per operation, parameter and client; `parameter` may be empty for
/// an operation dyno has one series of. Every error names the file and
/// line.
pub fn read_peer(path: &std::path::Path) -> Result<Vec<PeerRow>, Error> {
    let text = dyno_format::read_text(path)
        .map_err(|e| Error::Refused(format!("--compare {}: {e}", path.display())))?;
    parse_peer(&text, &path.display().to_string())
}

/// [`read_peer`] on the file's text; `name` names it in errors. CSV as RFC
/// 4180 writes it (quoted fields, a byte-order mark dropped). A file with
/// no rows, or a row repeated (the same operation, parameter and client),
/// is refused naming the lines.
pub fn parse_peer(text: &str, name: &str) -> Result<Vec<PeerRow>, Error> {
    let records = dyno_format::csv::records(text)
        .map_err(|e| Error::Refused(format!("--compare {name}: {e}")))?;
    let mut records = records.into_iter();
    let Some(header) = records.next() else {
        refuse!(
            "--compare {name}: empty; give a CSV with a header: operation,parameter,client,gas"
        );
    };
    let cols: Vec<String> = header
        .fields
        .iter()
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let col = |want: &str| cols.iter().position(|c| c == want);
    let (Some(op), Some(param), Some(client), Some(gas)) = (
        col("operation"),
        col("parameter"),
        col("client"),
        col("gas"),
    ) else {
        refuse!(
            "--compare {name}:{}: the header must name operation, parameter, client and gas (it has: {})",
            header.line,
            cols.join(", ")
        );
    };
    let mut rows: Vec<PeerRow> = Vec::new();
    for r in records {
        let cell = |i: usize| r.fields.get(i).map_or("", String::as_str);
        let gas_text = cell(gas);
        let Ok(g) = gas_text.parse::<f64>() else {
            refuse!(
                "--compare {name}:{}: gas {gas_text:?} is not a number",
                r.line
            );
        };
        if !(g.is_finite() && g > 0.0) || cell(op).is_empty() || cell(client).is_empty() {
            refuse!(
                "--compare {name}:{}: each row needs an operation, a client and a gas above 0",
                r.line
            );
        }
        let row = PeerRow {
            operation: cell(op).to_ascii_lowercase(),
            parameter: cell(param).to_ascii_lowercase(),
            client: cell(client).to_string(),
            gas: g,
            line: r.line,
        };
        if let Some(first) = rows.iter().find(|p| {
            (&p.operation, &p.parameter, &p.client) == (&row.operation, &row.parameter, &row.client)
        }) {
            refuse!(
                "--compare {name}:{}: {} {:?} for {} is given twice (first on line {}): keep one",
                row.line,
                row.operation,
                row.parameter,
                row.client,
                first.line
            );
        }
        rows.push(row);
    }
    if rows.is_empty() {
        refuse!(
            "--compare {name}: a header and no rows: give one row per operation, parameter and \
             client (operation,parameter,client,gas)"
        );
    }
    Ok(rows)
}

/// Set `peer`'s figures beside `pricing`'s: for every peer row whose
/// operation (and parameter) names one of dyno's series, its gas over the
/// same client's ECRECOVER, and dyno's per-operation time over its own
/// ECRECOVER in each client (geth's execution time, revm's newPayload).
/// A peer row that names no series, or a client without an ECRECOVER
/// row, is an error naming the line.
pub fn compare(
    pricing: &mut dyno_format::reprice::Pricing,
    peer: &[PeerRow],
    name: &str,
) -> Result<(), Error> {
    let ids = distinct(pricing.rows.iter().map(|r| &r.id));
    let series_of = |p: &PeerRow| -> Option<String> {
        let exact = format!(
            "{}/{}/{}",
            dyno_format::reprice::GROUP,
            p.operation,
            p.parameter
        );
        if ids.contains(&exact) {
            return Some(exact);
        }
        let of_op: Vec<&String> = ids
            .iter()
            .filter(|id| id.split('/').nth(1) == Some(p.operation.as_str()))
            .collect();
        (p.parameter.is_empty() && of_op.len() == 1).then(|| of_op[0].clone())
    };
    // dyno's figure per client: the client's own execution time where it
    // logged one, else dyno's newPayload time.
    let ours = |id: &str, client: &str| -> Option<f64> {
        let of = |time: &str| {
            pricing
                .rows
                .iter()
                .find(|r| r.id == id && r.level == "block" && r.client == client && r.time == time)
        };
        of("client_execution")
            .or_else(|| of("new_payload"))
            .map(|r| r.ns.value)
    };
    let clients = distinct(
        pricing
            .rows
            .iter()
            .filter(|r| r.level == "block")
            .map(|r| &r.client),
    );
    let anchor_id = ids
        .iter()
        .find(|id| id.split('/').nth(1) == Some(ANCHOR_OP))
        .cloned();
    let mut out = Vec::new();
    for p in peer {
        let Some(id) = series_of(p) else {
            refuse!(
                "--compare {name}:{}: {} {:?} names no series of this run (its series: {})",
                p.line,
                p.operation,
                p.parameter,
                ids.iter()
                    .map(|i| i.trim_start_matches("reprice/"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        };
        let Some(anchor) = peer
            .iter()
            .find(|a| a.operation == ANCHOR_OP && a.client == p.client)
        else {
            refuse!(
                "--compare {name}:{}: client {} has no {ANCHOR_OP} row to set its figures against",
                p.line,
                p.client
            );
        };
        let ours: Vec<(String, f64)> = clients
            .iter()
            .filter_map(|c| {
                let a = ours(anchor_id.as_deref()?, c)?;
                Some((c.clone(), ours(&id, c)? / a))
            })
            .collect();
        out.push(dyno_format::reprice::Compared {
            id,
            peer_client: p.client.clone(),
            peer_gas: p.gas,
            peer_ratio: p.gas / anchor.gas,
            ours,
        });
    }
    pricing.compared = out;
    Ok(())
}
