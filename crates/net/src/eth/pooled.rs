//! NewPooledTransactionHashes (0x08), the eth/68..71 form.

use alloy_primitives::{B256, Bytes};
use alloy_rlp::{Decodable, RlpEncodable};

use super::{EthMessage, id};

/// NewPooledTransactionHashes (go-ethereum `NewPooledTransactionHashesPacket71`):
/// `[types, [size...], [hash...]]` with one entry per transaction.
#[derive(Clone, Debug, Default, PartialEq, Eq, RlpEncodable)]
pub struct NewPooledTransactionHashes {
    /// EIP-2718 type byte of each transaction.
    pub types: Bytes,
    /// Network-encoded size of each transaction.
    pub sizes: Vec<u32>,
    /// Hash of each transaction.
    pub hashes: Vec<B256>,
}

impl Decodable for NewPooledTransactionHashes {
    /// Decodes the three lists and rejects mismatched lengths (geth drops
    /// such peers in its handler).
    fn decode(buf: &mut &[u8]) -> alloy_rlp::Result<Self> {
        let header = alloy_rlp::Header::decode(buf)?;
        if !header.list {
            return Err(alloy_rlp::Error::UnexpectedString);
        }
        if buf.len() < header.payload_length {
            return Err(alloy_rlp::Error::InputTooShort);
        }
        let (mut p, rest) = buf.split_at(header.payload_length);
        *buf = rest;
        let types = Bytes::decode(&mut p)?;
        let sizes = Vec::<u32>::decode(&mut p)?;
        let hashes = Vec::<B256>::decode(&mut p)?;
        if !p.is_empty() {
            return Err(alloy_rlp::Error::Custom(
                "extra fields in NewPooledTransactionHashes",
            ));
        }
        if types.len() != hashes.len() || sizes.len() != hashes.len() {
            return Err(alloy_rlp::Error::Custom(
                "NewPooledTransactionHashes list lengths differ",
            ));
        }
        Ok(Self {
            types,
            sizes,
            hashes,
        })
    }
}

impl EthMessage for NewPooledTransactionHashes {
    const ID: u8 = id::NEW_POOLED_TRANSACTION_HASHES;
    const NAME: &'static str = "NewPooledTransactionHashes";
}
