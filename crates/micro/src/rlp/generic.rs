//! Generic RLP: an encoding decoded into a tree of lists and byte strings,
//! and a tree encoded, with no Ethereum types involved. This is what most
//! SDKs outside Rust and Go do (web3j's `RlpDecoder`, pyrlp without sedes,
//! `@ethereumjs/rlp`), so `rlp/{decode,encode}-generic/<input>` is the id
//! every runtime answers to; the typed `rlp/{decode,encode}/<input>` stay
//! Rust's (and Go's) own.
//!
//! Byte strings are not decoded further: a typed transaction inside a block
//! body stays one string.

use alloy_rlp::{Encodable as _, Header};
use serde_json::{Value, json};

/// One RLP item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A byte string.
    Bytes(Vec<u8>),
    /// A list of items.
    List(Vec<Item>),
}

/// What a tree holds: list items, byte-string items (the outermost item
/// included), and the total length of the byte strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Lists.
    pub lists: u64,
    /// Byte strings.
    pub strings: u64,
    /// Bytes in all byte strings.
    pub bytes: u64,
}

impl Item {
    /// Count every item of the tree.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        self.count_into(&mut c);
        c
    }

    fn count_into(&self, c: &mut Counts) {
        match self {
            Self::Bytes(b) => {
                c.strings += 1;
                c.bytes += b.len() as u64;
            }
            Self::List(items) => {
                c.lists += 1;
                for i in items {
                    i.count_into(c);
                }
            }
        }
    }

    /// The tree's digest, which other runtimes report for
    /// `rlp/decode-generic` beside the counts so that a decoder is checked
    /// on every byte: keccak-256 over a pre-order walk, a byte string as
    /// `0x80 ‖ u32 BE length ‖ bytes`, a list as `0xc0 ‖ u32 BE item count`
    /// followed by its items.
    pub fn digest(&self) -> [u8; 32] {
        use tiny_keccak::{Hasher, Keccak};
        fn walk(item: &Item, k: &mut Keccak) {
            match item {
                Item::Bytes(b) => {
                    k.update(&[0x80]);
                    k.update(&(b.len() as u32).to_be_bytes());
                    k.update(b);
                }
                Item::List(items) => {
                    k.update(&[0xc0]);
                    k.update(&(items.len() as u32).to_be_bytes());
                    for i in items {
                        walk(i, k);
                    }
                }
            }
        }
        let mut k = Keccak::v256();
        walk(self, &mut k);
        let mut out = [0u8; 32];
        k.finalize(&mut out);
        out
    }

    /// The tree as JSON: a byte string as `0x` hex, a list as an array.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Bytes(b) => json!(crate::cases::full_hex(b)),
            Self::List(items) => Value::Array(items.iter().map(Self::to_json).collect()),
        }
    }
}

/// Decode with alloy-rlp's `Header`, walking the whole encoding.
pub fn decode_alloy(mut buf: &[u8]) -> Result<Item, String> {
    let item = walk_alloy(&mut buf).map_err(|e| e.to_string())?;
    if buf.is_empty() {
        Ok(item)
    } else {
        Err(format!("{} bytes after the item", buf.len()))
    }
}

fn walk_alloy(buf: &mut &[u8]) -> alloy_rlp::Result<Item> {
    let h = Header::decode(buf)?;
    if buf.len() < h.payload_length {
        return Err(alloy_rlp::Error::InputTooShort);
    }
    let (payload, rest) = buf.split_at(h.payload_length);
    *buf = rest;
    if h.list {
        let mut p = payload;
        let mut items = Vec::new();
        while !p.is_empty() {
            items.push(walk_alloy(&mut p)?);
        }
        Ok(Item::List(items))
    } else {
        Ok(Item::Bytes(payload.to_vec()))
    }
}

/// Decode with parity's `rlp::Rlp` view, walking the whole encoding.
pub fn decode_parity(buf: &[u8]) -> Result<Item, String> {
    let r = ::rlp::Rlp::new(buf);
    let info = r.payload_info().map_err(|e| e.to_string())?;
    let whole = info.header_len + info.value_len;
    if whole != buf.len() {
        return Err(format!("{} bytes after the item", buf.len() - whole));
    }
    walk_parity(&r).map_err(|e| e.to_string())
}

fn walk_parity(r: &::rlp::Rlp<'_>) -> Result<Item, ::rlp::DecoderError> {
    if r.is_list() {
        r.iter()
            .map(|x| walk_parity(&x))
            .collect::<Result<Vec<_>, _>>()
            .map(Item::List)
    } else {
        Ok(Item::Bytes(r.data()?.to_vec()))
    }
}

fn payload_length(items: &[Item]) -> usize {
    items.iter().map(length).sum()
}

fn length(item: &Item) -> usize {
    match item {
        Item::Bytes(b) => b.as_slice().length(),
        Item::List(items) => {
            let p = payload_length(items);
            Header {
                list: true,
                payload_length: p,
            }
            .length()
                + p
        }
    }
}

/// Encode with alloy-rlp, sizing the buffer first.
pub fn encode_alloy(item: &Item) -> Vec<u8> {
    let mut out = Vec::with_capacity(length(item));
    put_alloy(item, &mut out);
    out
}

fn put_alloy(item: &Item, out: &mut Vec<u8>) {
    match item {
        Item::Bytes(b) => b.as_slice().encode(out),
        Item::List(items) => {
            Header {
                list: true,
                payload_length: payload_length(items),
            }
            .encode(out);
            for i in items {
                put_alloy(i, out);
            }
        }
    }
}

/// Encode with parity's `RlpStream`.
pub fn encode_parity(item: &Item) -> Vec<u8> {
    let mut s = ::rlp::RlpStream::new();
    put_parity(item, &mut s);
    s.out().to_vec()
}

fn put_parity(item: &Item, s: &mut ::rlp::RlpStream) {
    match item {
        Item::Bytes(b) => {
            s.append(&b.as_slice());
        }
        Item::List(items) => {
            s.begin_list(items.len());
            for i in items {
                put_parity(i, s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The EIP-155 example transaction, signed.
    const EIP155: &str = "f86c098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a028ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276a067cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83";

    #[test]
    fn both_libraries_decode_and_encode_the_same_tree() {
        let bytes = dyno_workload::unhex(EIP155).unwrap();
        let a = decode_alloy(&bytes).unwrap();
        let p = decode_parity(&bytes).unwrap();
        assert_eq!(a, p);
        let c = a.counts();
        assert_eq!((c.lists, c.strings), (1, 9));
        // nonce 9 (1) + gas price (5) + gas (2) + to (20) + value (8) + data (0)
        // + v (1) + r (32) + s (32)
        assert_eq!(c.bytes, 1 + 5 + 2 + 20 + 8 + 1 + 32 + 32);
        assert_eq!(encode_alloy(&a), bytes);
        assert_eq!(encode_parity(&a), bytes);
    }

    #[test]
    fn the_digest_walks_every_byte_and_every_boundary() {
        // c0 00000002 | 80 00000000 | 80 00000001 7f, hashed with
        // pycryptodome's keccak-256.
        let two = Item::List(vec![Item::Bytes(vec![]), Item::Bytes(vec![0x7f])]);
        assert_eq!(
            dyno_workload::hex(two.digest()),
            "0x2f186a66c37ba88fe8904d0e38521db408ae13878d080bf502b70d88abbed512"
        );
        // The same bytes in one string: the same counts of bytes, another
        // tree, another digest (c0 00000001 | 80 00000002 007f).
        let one = Item::List(vec![Item::Bytes(vec![0x00, 0x7f])]);
        assert_eq!(
            dyno_workload::hex(one.digest()),
            "0x938e63e663d88fce2f410d21065816fbc71df8ae2c95fd16d3650b3014610491"
        );
    }

    #[test]
    fn single_bytes_nesting_and_errors() {
        for tree in [
            Item::Bytes(vec![0x7f]),
            Item::Bytes(vec![0x80]),
            Item::Bytes(vec![]),
            Item::List(vec![]),
            Item::List(vec![
                Item::List(vec![Item::Bytes(vec![1, 2, 3])]),
                Item::Bytes(vec![0; 60]),
            ]),
        ] {
            let a = encode_alloy(&tree);
            assert_eq!(a, encode_parity(&tree), "{tree:?}");
            assert_eq!(decode_alloy(&a).unwrap(), tree);
            assert_eq!(decode_parity(&a).unwrap(), tree);
        }
        assert!(decode_alloy(&[0xc2, 0x01]).is_err());
        assert!(decode_alloy(&[0x01, 0x02]).is_err());
        assert!(decode_parity(&[0x01, 0x02]).is_err());
    }
}
