//! A chain folder: a genesis and the blocks on it, as files any client
//! reads. `dyno replay --export` writes dyno's own sets this way, `dyno
//! load --record` the blocks a real node built under load, and `dyno
//! replay --set DIR` replays either into a fresh client.
//!
//! - `genesis.json`: go-ethereum's genesis JSON (what `geth init` reads).
//! - `blocks.rlp`: each block's RLP, one after another (what `geth import`
//!   reads).
//! - `payloads.jsonl`: each block's `engine_newPayloadV4` parameters, one
//!   JSON array per line (for tools that speak the Engine API).
//! - `chain.json`: what made the folder, and each block's number, hash,
//!   class and id (`null`: a warm-up block). Optional when reading: a
//!   folder without it replays every block under
//!   `client/newpayload/<folder name>`.

use std::path::{Path, PathBuf};

use alloy_consensus::{Header, TxEnvelope};
use alloy_eips::eip4895::Withdrawals;
use alloy_primitives::B256;
use alloy_rlp::Decodable;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::blocks::{BlockSet, Planned};
use crate::payload::Payload;
use dyno_evm::block::fork::Fork;

pub const GENESIS: &str = "genesis.json";
pub const BLOCKS: &str = "blocks.rlp";
pub const PAYLOADS: &str = "payloads.jsonl";
pub const MANIFEST: &str = "chain.json";

/// The class of a block read without a manifest.
pub const CHAIN_CLASS: &str = "chain";

/// What made a folder, and what each block is measured as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The set's name (`60M`, or the recording's folder name).
    pub name: String,
    /// The command that made it.
    pub made_by: String,
    /// The client that built the blocks, when a client did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    pub blocks: Vec<Entry>,
}

/// One block of a manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub number: u64,
    pub hash: B256,
    pub class: String,
    /// The id it is measured under; `None` for a warm-up block.
    pub id: Option<String>,
}

/// Why a folder could not be read or written. Every message names the
/// file, and the field or block that is wrong.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error(
        "{}: {source}\n  a chain folder holds {GENESIS} and {BLOCKS} (written by `dyno load --record` or `dyno replay --export`)",
        path.display()
    )]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {why}", path.display())]
    Invalid { path: PathBuf, why: String },
    #[error("writing {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{0}: the chain folder's blocks must be dyno's own (made by `dyno replay`), not read from files"
    )]
    NotOwn(String),
}

/// A chain folder's contents, as they are on disk.
#[derive(Debug, Clone)]
pub struct Folder {
    pub genesis_json: String,
    /// The blocks' RLP, one after another.
    pub blocks_rlp: Vec<u8>,
    pub manifest: Option<Manifest>,
}

impl Folder {
    /// Read `dir`'s files (no checking yet: see [`Folder::parse`]).
    pub fn read(dir: &Path) -> Result<Self, FolderError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| FolderError::Read { path, source })
        };
        let genesis = read(GENESIS)?;
        let genesis_json = String::from_utf8(genesis).map_err(|e| FolderError::Invalid {
            path: dir.join(GENESIS),
            why: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        })?;
        let blocks_rlp = read(BLOCKS)?;
        let manifest_path = dir.join(MANIFEST);
        let manifest = match std::fs::read_to_string(&manifest_path) {
            Ok(text) => Some(
                serde_json::from_str(&text).map_err(|e| FolderError::Invalid {
                    path: manifest_path.clone(),
                    why: json_error(&e),
                })?,
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(FolderError::Read {
                    path: manifest_path,
                    source,
                });
            }
        };
        Ok(Self {
            genesis_json,
            blocks_rlp,
            manifest,
        })
    }

    /// Check the files and make the block set they hold: the genesis is
    /// an object with the fields a client needs, every block decodes, each
    /// follows the one before it, none carries execution requests, and the
    /// manifest (if any) lists exactly these blocks. `dir` names the files
    /// in errors; `name` is the set's name when there is no manifest.
    pub fn parse(&self, dir: &Path, name: &str) -> Result<BlockSet, FolderError> {
        let gas_limit =
            check_genesis(&self.genesis_json).map_err(|why| invalid(dir.join(GENESIS), why))?;
        let blocks_path = dir.join(BLOCKS);
        let payloads = decode_blocks(&self.blocks_rlp).map_err(|why| invalid(&blocks_path, why))?;
        let name = self.manifest.as_ref().map_or(name, |m| m.name.as_str());
        let planned: Vec<Planned> = match &self.manifest {
            None => payloads
                .into_iter()
                .map(|payload| Planned {
                    payload,
                    block: None,
                    id: Some(newpayload_id_of(name)),
                    class: CHAIN_CLASS.into(),
                })
                .collect(),
            Some(m) => {
                let path = dir.join(MANIFEST);
                if m.blocks.len() != payloads.len() {
                    return Err(invalid(
                        path,
                        format!(
                            "field `blocks`: {} entries, but {BLOCKS} holds {} blocks",
                            m.blocks.len(),
                            payloads.len()
                        ),
                    ));
                }
                payloads
                    .into_iter()
                    .zip(&m.blocks)
                    .enumerate()
                    .map(|(i, (payload, e))| {
                        if e.hash != payload.hash || e.number != payload.header.number {
                            return Err(invalid(
                                &path,
                                format!(
                                    "field `blocks[{i}]`: block {} {}, but {BLOCKS}'s block {i} is number {} with hash {}",
                                    e.number, e.hash, payload.header.number, payload.hash
                                ),
                            ));
                        }
                        if let Some(id) = &e.id
                            && (id.is_empty() || id.contains(char::is_whitespace))
                        {
                            return Err(invalid(
                                &path,
                                format!("field `blocks[{i}].id`: {id:?} is not an id (no spaces, not empty)"),
                            ));
                        }
                        Ok(Planned {
                            payload,
                            block: None,
                            id: e.id.clone(),
                            class: e.class.clone(),
                        })
                    })
                    .collect::<Result<_, _>>()?
            }
        };
        if planned.iter().all(|p| p.id.is_none()) {
            return Err(invalid(
                dir.join(MANIFEST),
                "field `blocks`: every block is a warm-up (id null); nothing would be measured"
                    .into(),
            ));
        }
        let fork = serde_json::from_str(&self.genesis_json)
            .ok()
            .and_then(|g| Fork::of_genesis(&g));
        Ok(BlockSet {
            name: name.into(),
            genesis: None,
            genesis_json: self.genesis_json.clone(),
            gas_limit,
            fork,
            blocks: planned,
        })
    }

    /// The folder of one of dyno's own sets (made in this process).
    pub fn export(set: &BlockSet, made_by: &str) -> Result<Self, FolderError> {
        let mut blocks_rlp = Vec::new();
        for p in &set.blocks {
            let block = p
                .block
                .as_ref()
                .ok_or_else(|| FolderError::NotOwn(set.name.clone()))?;
            blocks_rlp.extend(dyno_evm::block::export::block_rlp(block));
        }
        Ok(Self {
            genesis_json: set.genesis_json.clone(),
            blocks_rlp,
            manifest: Some(manifest(set, made_by, None)),
        })
    }

    /// Write the four files into `dir` (made if missing); `set` is what
    /// [`Folder::parse`] made of this folder (for the payloads).
    pub fn write(&self, dir: &Path, set: &BlockSet) -> Result<(), FolderError> {
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            dyno_format::destination::write_new(&path, |w| std::io::Write::write_all(w, bytes))
                .map_err(|source| FolderError::Write { path, source })
        };
        std::fs::create_dir_all(dir).map_err(|source| FolderError::Write {
            path: dir.to_path_buf(),
            source,
        })?;
        let genesis: Value =
            serde_json::from_str(&self.genesis_json).map_err(|e| FolderError::Invalid {
                path: dir.join(GENESIS),
                why: json_error(&e),
            })?;
        write(GENESIS, pretty(&genesis).as_bytes())?;
        write(BLOCKS, &self.blocks_rlp)?;
        let mut lines = String::new();
        for p in &set.blocks {
            lines.push_str(&p.payload.new_payload_params().to_string());
            lines.push('\n');
        }
        write(PAYLOADS, lines.as_bytes())?;
        if let Some(m) = &self.manifest {
            write(MANIFEST, pretty(m).as_bytes())?;
        }
        Ok(())
    }
}

/// A manifest listing `set`'s blocks as they are measured.
pub fn manifest(set: &BlockSet, made_by: &str, client: Option<String>) -> Manifest {
    Manifest {
        name: set.name.clone(),
        made_by: made_by.into(),
        client,
        blocks: set
            .blocks
            .iter()
            .map(|p| Entry {
                number: p.payload.header.number,
                hash: p.payload.hash,
                class: p.class.clone(),
                id: p.id.clone(),
            })
            .collect(),
    }
}

/// The id every block of a folder without a manifest is measured under.
pub fn newpayload_id_of(name: &str) -> String {
    format!("client/newpayload/{name}")
}

fn invalid(path: impl Into<PathBuf>, why: String) -> FolderError {
    FolderError::Invalid {
        path: path.into(),
        why,
    }
}

fn pretty(v: &impl Serialize) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("JSON values serialize");
    s.push('\n');
    s
}

/// serde_json's message with its line and column said plainly.
fn json_error(e: &serde_json::Error) -> String {
    let msg = e.to_string();
    let msg = msg
        .rsplit_once(" at line ")
        .map_or(msg.as_str(), |(m, _)| m)
        .to_string();
    format!("line {} column {}: {msg}", e.line(), e.column())
}

/// The genesis fields a client needs, checked; the gas limit.
fn check_genesis(text: &str) -> Result<u64, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| json_error(&e))?;
    let Some(g) = v.as_object() else {
        return Err("not a JSON object (a genesis is one object: config, alloc, ...)".into());
    };
    let config = g
        .get("config")
        .ok_or("field `config`: missing (the chain's forks and id)")?;
    let chain_id = config
        .get("chainId")
        .ok_or("field `config.chainId`: missing")?;
    if !chain_id.is_u64() {
        return Err(format!(
            "field `config.chainId`: {chain_id} is not a whole number"
        ));
    }
    if !g.get("alloc").is_some_and(Value::is_object) {
        return Err("field `alloc`: missing or not an object (address -> account)".into());
    }
    let limit = g.get("gasLimit").ok_or("field `gasLimit`: missing")?;
    limit
        .as_str()
        .and_then(|s| s.strip_prefix("0x"))
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| {
            format!("field `gasLimit`: {limit} is not a hex quantity like \"0x3938700\"")
        })
}

/// Every block of a `blocks.rlp`, checked to follow one another and to
/// carry no execution requests.
fn decode_blocks(mut buf: &[u8]) -> Result<Vec<Payload>, String> {
    let total = buf.len();
    let mut out: Vec<Payload> = Vec::new();
    while !buf.is_empty() {
        let at = total - buf.len();
        let i = out.len();
        let block = decode_block(&mut buf)
            .map_err(|(field, e)| format!("block {i} (at byte {at}): {field}: {e}"))?;
        let p = Payload::from_block(block);
        let number = p.header.number;
        if let Some(prev) = out.last()
            && (p.header.parent_hash != prev.hash || number != prev.header.number + 1)
        {
            return Err(format!(
                "block {i} (number {number}, parent {}) does not follow block {} (number {}, hash {})",
                p.header.parent_hash,
                i - 1,
                prev.header.number,
                prev.hash
            ));
        }
        if p.has_requests() {
            return Err(format!(
                "block {i} (number {number}): field `requests_hash`: it commits to execution \
                 requests, which come from the consensus layer and are not in the block, so \
                 it cannot be replayed from this file"
            ));
        }
        if p.header.parent_beacon_block_root.is_none() || p.header.requests_hash.is_none() {
            return Err(format!(
                "block {i} (number {number}): a pre-Prague header (no `parent_beacon_block_root` \
                 or `requests_hash`); dyno replays Prague and Osaka blocks with \
                 engine_newPayloadV4"
            ));
        }
        out.push(p);
    }
    if out.is_empty() {
        return Err("no blocks (the file is empty)".into());
    }
    Ok(out)
}

/// One block's RLP, field by field so an error says which: `[header,
/// [transactions], [ommers], [withdrawals]]`.
fn decode_block(
    buf: &mut &[u8],
) -> Result<alloy_consensus::Block<TxEnvelope>, (String, alloy_rlp::Error)> {
    fn field(f: &'static str) -> impl Fn(alloy_rlp::Error) -> (String, alloy_rlp::Error) {
        move |e| (f.to_string(), e)
    }
    let outer = alloy_rlp::Header::decode(buf).map_err(field("the block's list"))?;
    if !outer.list {
        return Err((
            "the block's list".into(),
            alloy_rlp::Error::UnexpectedString,
        ));
    }
    if buf.len() < outer.payload_length {
        return Err(("the block's list".into(), alloy_rlp::Error::InputTooShort));
    }
    let (mut body, rest) = buf.split_at(outer.payload_length);
    let header = Header::decode(&mut body).map_err(field("header"))?;
    let txs = alloy_rlp::Header::decode(&mut body).map_err(field("transactions"))?;
    if !txs.list {
        return Err(("transactions".into(), alloy_rlp::Error::UnexpectedString));
    }
    if body.len() < txs.payload_length {
        return Err(("transactions".into(), alloy_rlp::Error::InputTooShort));
    }
    let (mut tx_buf, mut body) = body.split_at(txs.payload_length);
    let mut transactions = Vec::new();
    while !tx_buf.is_empty() {
        let i = transactions.len();
        transactions
            .push(TxEnvelope::decode(&mut tx_buf).map_err(|e| (format!("transaction {i}"), e))?);
    }
    let ommers = Vec::<Header>::decode(&mut body).map_err(field("ommers"))?;
    let withdrawals = if body.is_empty() {
        None
    } else {
        Some(Withdrawals::decode(&mut body).map_err(field("withdrawals"))?)
    };
    if !body.is_empty() {
        return Err((
            "the block's list".into(),
            alloy_rlp::Error::Custom("bytes left after the withdrawals"),
        ));
    }
    *buf = rest;
    Ok(alloy_consensus::Block {
        header,
        body: alloy_consensus::BlockBody {
            transactions,
            ommers,
            withdrawals,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks;
    use dyno_evm::block::genesis::Contracts;

    fn own_set() -> BlockSet {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let ctx = dyno_workload::Ctx {
            vectors: repo.join("vectors"),
        };
        let contracts = Contracts::load(&ctx).unwrap();
        blocks::make(&contracts, "30M", 1, 1, Fork::Osaka).unwrap()
    }

    fn written(set: &BlockSet) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let folder = Folder::export(set, "dyno replay --export").unwrap();
        folder.write(dir.path(), set).unwrap();
        dir
    }

    /// The error `parse` gives after `edit` changes the written folder.
    fn broken(set: &BlockSet, edit: impl FnOnce(&mut Folder)) -> String {
        let dir = written(set);
        let mut f = Folder::read(dir.path()).unwrap();
        edit(&mut f);
        f.parse(dir.path(), "x").unwrap_err().to_string()
    }

    #[test]
    fn an_exported_set_reads_back_as_the_same_blocks_and_ids() {
        let set = own_set();
        let dir = written(&set);
        let back = Folder::read(dir.path())
            .unwrap()
            .parse(dir.path(), "ignored")
            .unwrap();
        assert_eq!(back.name, "30M");
        assert_eq!(back.gas_limit, 30_000_000);
        assert!(back.genesis.is_none());
        assert_eq!(back.blocks.len(), set.blocks.len());
        for (a, b) in set.blocks.iter().zip(&back.blocks) {
            assert_eq!(a.payload, b.payload);
            assert_eq!((&a.id, &a.class), (&b.id, &b.class));
        }
        assert_eq!(back.ids(), set.ids());
        let lines = std::fs::read_to_string(dir.path().join(PAYLOADS)).unwrap();
        assert_eq!(lines.lines().count(), 8);
        let first: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
        assert_eq!(first, set.blocks[0].payload.new_payload_params());

        // Without its manifest, every block counts under the folder's name.
        std::fs::remove_file(dir.path().join(MANIFEST)).unwrap();
        let bare = Folder::read(dir.path())
            .unwrap()
            .parse(dir.path(), "mine")
            .unwrap();
        assert_eq!(bare.ids(), ["client/newpayload/mine"]);
        assert!(bare.blocks.iter().all(|p| p.class == CHAIN_CLASS));
    }

    #[test]
    fn a_file_that_does_not_parse_names_the_file_and_the_field() {
        let set = own_set();
        type Edit = Box<dyn FnOnce(&mut Folder)>;
        let cases: Vec<(Edit, &str)> = vec![
            (
                Box::new(|f| f.genesis_json = "{\n  \"config\": }".into()),
                "genesis.json: line 2 column 13: expected value",
            ),
            (
                Box::new(|f| {
                    f.genesis_json = r#"{"config": {}, "alloc": {}, "gasLimit": "0x1"}"#.into()
                }),
                "genesis.json: field `config.chainId`: missing",
            ),
            (
                Box::new(|f| {
                    f.genesis_json =
                        r#"{"config": {"chainId": 1}, "alloc": {}, "gasLimit": 30000000}"#.into()
                }),
                "genesis.json: field `gasLimit`: 30000000 is not a hex quantity",
            ),
            (
                Box::new(|f| {
                    f.genesis_json = r#"{"config": {"chainId": 1}, "gasLimit": "0x1"}"#.into()
                }),
                "genesis.json: field `alloc`: missing",
            ),
            (
                Box::new(|f| {
                    let n = f.blocks_rlp.len();
                    f.blocks_rlp.truncate(n - 3);
                }),
                "blocks.rlp: block 7 (at byte",
            ),
            (Box::new(|f| f.blocks_rlp.clear()), "blocks.rlp: no blocks"),
            (
                Box::new(|f| {
                    let m = f.manifest.as_mut().unwrap();
                    m.blocks[2].hash = B256::repeat_byte(7);
                }),
                "chain.json: field `blocks[2]`: block 3 0x0707",
            ),
            (
                Box::new(|f| {
                    let m = f.manifest.as_mut().unwrap();
                    m.blocks.pop();
                }),
                "chain.json: field `blocks`: 7 entries, but blocks.rlp holds 8 blocks",
            ),
            (
                Box::new(|f| {
                    let m = f.manifest.as_mut().unwrap();
                    m.blocks[5].id = Some("client newpayload".into());
                }),
                "chain.json: field `blocks[5].id`",
            ),
        ];
        for (edit, expected) in cases {
            let err = broken(&set, edit);
            assert!(err.contains(expected), "{err}\n  expected: {expected}");
        }
    }

    #[test]
    fn a_broken_transaction_or_a_gap_or_requests_are_named() {
        let set = own_set();
        let own = |i: usize| set.blocks[i].block.clone().unwrap();
        let rlp = |blocks: &[dyno_evm::block::Block]| -> Vec<u8> {
            blocks
                .iter()
                .flat_map(dyno_evm::block::export::block_rlp)
                .collect()
        };
        let parse = |bytes: Vec<u8>| {
            let f = Folder {
                genesis_json: set.genesis_json.clone(),
                blocks_rlp: bytes,
                manifest: None,
            };
            f.parse(Path::new("rec"), "rec").unwrap_err().to_string()
        };

        // Block 1 (transfers) with its first transaction's type byte
        // changed to one no fork defines: the transaction is named.
        let b1 = own(1);
        let mut bytes = rlp(&[own(0)]);
        let start = bytes.len();
        bytes.extend(rlp(std::slice::from_ref(&b1)));
        let tx = alloy_eips::eip2718::Encodable2718::encoded_2718(&b1.transactions[0]);
        let at = bytes[start..]
            .windows(tx.len())
            .position(|w| w == tx.as_slice())
            .unwrap()
            + start;
        bytes[at] = 0x7f; // an unknown transaction type
        let err = parse(bytes);
        assert!(
            err.starts_with("rec/blocks.rlp: block 1 (at byte") && err.contains("transaction 0:"),
            "{err}"
        );

        // Blocks 0 and 2: a gap.
        let err = parse(rlp(&[own(0), own(2)]));
        assert!(err.contains("block 1 (number 3, parent"), "{err}");
        assert!(err.contains("does not follow block 0 (number 1"), "{err}");

        // A header committing to execution requests.
        let mut b0 = own(0);
        b0.header.requests_hash = Some(B256::repeat_byte(3));
        let err = parse(rlp(&[b0]));
        assert!(
            err.contains("block 0 (number 1): field `requests_hash`"),
            "{err}"
        );
    }
}
