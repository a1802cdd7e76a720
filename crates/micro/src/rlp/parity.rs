//! Mirrors of the alloy-consensus objects for parity-common's `rlp` crate,
//! field for field, with hand-written `Encodable`/`Decodable` impls in the
//! style of OpenEthereum (`RlpStream::begin_list` + `append`, `Rlp::val_at`).
//!
//! Typed (EIP-2718) transactions and receipts use the network form that block
//! bodies and receipt lists carry: an RLP string holding `type || rlp(fields)`,
//! legacy ones the bare list, as alloy's `Encodable` does.

use std::fmt;

use ::rlp::{Decodable, DecoderError, Encodable, Rlp, RlpStream};
use alloy_consensus::{
    BlockBody, Eip658Value, Header, ReceiptEnvelope, TrieAccount, TxEip4844Variant, TxEnvelope,
    transaction::to_eip155_value,
};
use alloy_primitives::{Address, B256, TxKind, U256};

mod block;
pub(crate) use block::*;

/// A fixed-length byte string: hashes, addresses, the bloom, the PoW nonce.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fixed<const N: usize>(pub(crate) [u8; N]);

pub(crate) type H64 = Fixed<8>;
pub(crate) type H160 = Fixed<20>;
pub(crate) type H256 = Fixed<32>;
pub(crate) type Bloom = Fixed<256>;

impl<const N: usize> fmt::Debug for Fixed<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&dyno_workload::hex(self.0))
    }
}

impl<const N: usize> Encodable for Fixed<N> {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.encoder().encode_value(&self.0);
    }
}

impl<const N: usize> Decodable for Fixed<N> {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        rlp.decoder().decode_value(|bytes| match bytes.len() {
            n if n == N => {
                let mut out = [0u8; N];
                out.copy_from_slice(bytes);
                Ok(Self(out))
            }
            n if n < N => Err(DecoderError::RlpIsTooShort),
            _ => Err(DecoderError::RlpIsTooBig),
        })
    }
}

impl From<&Address> for H160 {
    fn from(a: &Address) -> Self {
        Self(a.0.0)
    }
}

impl From<&B256> for H256 {
    fn from(h: &B256) -> Self {
        Self(h.0)
    }
}

/// A 256-bit unsigned integer, big-endian; encoded without leading zeros.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word(pub(crate) [u8; 32]);

impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&dyno_workload::hex(self.0))
    }
}

impl Encodable for Word {
    fn rlp_append(&self, s: &mut RlpStream) {
        let zeros = self.0.iter().take_while(|b| **b == 0).count();
        s.encoder().encode_value(&self.0[zeros..]);
    }
}

impl Decodable for Word {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        rlp.decoder().decode_value(|bytes| match bytes.len() {
            0 => Ok(Self([0; 32])),
            _ if bytes[0] == 0 => Err(DecoderError::RlpInvalidIndirection),
            n if n <= 32 => {
                let mut out = [0u8; 32];
                out[32 - n..].copy_from_slice(bytes);
                Ok(Self(out))
            }
            _ => Err(DecoderError::RlpIsTooBig),
        })
    }
}

impl From<&U256> for Word {
    fn from(u: &U256) -> Self {
        Self(u.to_be_bytes::<32>())
    }
}

/// A transaction's destination: a call, or the empty string for a creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Create,
    Call(H160),
}

impl Encodable for Action {
    fn rlp_append(&self, s: &mut RlpStream) {
        match self {
            Self::Create => s.encoder().encode_value(&[]),
            Self::Call(address) => address.rlp_append(s),
        }
    }
}

impl Decodable for Action {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        if rlp.is_empty() {
            if rlp.is_data() {
                Ok(Self::Create)
            } else {
                Err(DecoderError::RlpExpectedToBeData)
            }
        } else {
            Ok(Self::Call(rlp.as_val()?))
        }
    }
}

impl From<&TxKind> for Action {
    fn from(kind: &TxKind) -> Self {
        match kind {
            TxKind::Create => Self::Create,
            TxKind::Call(address) => Self::Call(address.into()),
        }
    }
}

/// Checks a list's item count before its fields are read.
fn expect_items(rlp: &Rlp, n: usize) -> Result<(), DecoderError> {
    if rlp.item_count()? == n {
        Ok(())
    } else {
        Err(DecoderError::RlpIncorrectListLen)
    }
}

/// `[nonce, balance, storageRoot, codeHash]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PAccount {
    pub(crate) nonce: u64,
    pub(crate) balance: Word,
    pub(crate) storage_root: H256,
    pub(crate) code_hash: H256,
}

impl Encodable for PAccount {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(4)
            .append(&self.nonce)
            .append(&self.balance)
            .append(&self.storage_root)
            .append(&self.code_hash);
    }
}

impl Decodable for PAccount {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 4)?;
        Ok(Self {
            nonce: rlp.val_at(0)?,
            balance: rlp.val_at(1)?,
            storage_root: rlp.val_at(2)?,
            code_hash: rlp.val_at(3)?,
        })
    }
}

impl From<&TrieAccount> for PAccount {
    fn from(a: &TrieAccount) -> Self {
        Self {
            nonce: a.nonce,
            balance: (&a.balance).into(),
            storage_root: (&a.storage_root).into(),
            code_hash: (&a.code_hash).into(),
        }
    }
}

/// A signed EIP-155 legacy transaction, `v` as on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PLegacyTx {
    pub(crate) nonce: u64,
    pub(crate) gas_price: u128,
    pub(crate) gas: u64,
    pub(crate) action: Action,
    pub(crate) value: Word,
    pub(crate) data: Vec<u8>,
    pub(crate) v: u64,
    pub(crate) r: Word,
    pub(crate) s: Word,
}

impl Encodable for PLegacyTx {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(9)
            .append(&self.nonce)
            .append(&self.gas_price)
            .append(&self.gas)
            .append(&self.action)
            .append(&self.value)
            .append(&self.data)
            .append(&self.v)
            .append(&self.r)
            .append(&self.s);
    }
}

impl Decodable for PLegacyTx {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 9)?;
        Ok(Self {
            nonce: rlp.val_at(0)?,
            gas_price: rlp.val_at(1)?,
            gas: rlp.val_at(2)?,
            action: rlp.val_at(3)?,
            value: rlp.val_at(4)?,
            data: rlp.val_at(5)?,
            v: rlp.val_at(6)?,
            r: rlp.val_at(7)?,
            s: rlp.val_at(8)?,
        })
    }
}

/// One EIP-2930 access-list entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PAccessItem {
    pub(crate) address: H160,
    pub(crate) storage_keys: Vec<H256>,
}

impl Encodable for PAccessItem {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(2).append(&self.address);
        s.append_list::<H256, H256>(&self.storage_keys);
    }
}

impl Decodable for PAccessItem {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 2)?;
        Ok(Self {
            address: rlp.val_at(0)?,
            storage_keys: rlp.list_at(1)?,
        })
    }
}

/// The fields of a signed EIP-1559 transaction (the list after the type byte).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PEip1559Tx {
    pub(crate) chain_id: u64,
    pub(crate) nonce: u64,
    pub(crate) max_priority_fee_per_gas: u128,
    pub(crate) max_fee_per_gas: u128,
    pub(crate) gas: u64,
    pub(crate) action: Action,
    pub(crate) value: Word,
    pub(crate) data: Vec<u8>,
    pub(crate) access_list: Vec<PAccessItem>,
    pub(crate) y_parity: bool,
    pub(crate) r: Word,
    pub(crate) s: Word,
}

impl Encodable for PEip1559Tx {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(12)
            .append(&self.chain_id)
            .append(&self.nonce)
            .append(&self.max_priority_fee_per_gas)
            .append(&self.max_fee_per_gas)
            .append(&self.gas)
            .append(&self.action)
            .append(&self.value)
            .append(&self.data)
            .append_list::<PAccessItem, PAccessItem>(&self.access_list)
            .append(&self.y_parity)
            .append(&self.r)
            .append(&self.s);
    }
}

impl Decodable for PEip1559Tx {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 12)?;
        Ok(Self {
            chain_id: rlp.val_at(0)?,
            nonce: rlp.val_at(1)?,
            max_priority_fee_per_gas: rlp.val_at(2)?,
            max_fee_per_gas: rlp.val_at(3)?,
            gas: rlp.val_at(4)?,
            action: rlp.val_at(5)?,
            value: rlp.val_at(6)?,
            data: rlp.val_at(7)?,
            access_list: rlp.list_at(8)?,
            y_parity: rlp.val_at(9)?,
            r: rlp.val_at(10)?,
            s: rlp.val_at(11)?,
        })
    }
}

/// The fields of a signed EIP-4844 transaction without its sidecar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PEip4844Tx {
    pub(crate) chain_id: u64,
    pub(crate) nonce: u64,
    pub(crate) max_priority_fee_per_gas: u128,
    pub(crate) max_fee_per_gas: u128,
    pub(crate) gas: u64,
    pub(crate) to: H160,
    pub(crate) value: Word,
    pub(crate) data: Vec<u8>,
    pub(crate) access_list: Vec<PAccessItem>,
    pub(crate) max_fee_per_blob_gas: u128,
    pub(crate) blob_versioned_hashes: Vec<H256>,
    pub(crate) y_parity: bool,
    pub(crate) r: Word,
    pub(crate) s: Word,
}

impl Encodable for PEip4844Tx {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(14)
            .append(&self.chain_id)
            .append(&self.nonce)
            .append(&self.max_priority_fee_per_gas)
            .append(&self.max_fee_per_gas)
            .append(&self.gas)
            .append(&self.to)
            .append(&self.value)
            .append(&self.data)
            .append_list::<PAccessItem, PAccessItem>(&self.access_list)
            .append(&self.max_fee_per_blob_gas)
            .append_list::<H256, H256>(&self.blob_versioned_hashes)
            .append(&self.y_parity)
            .append(&self.r)
            .append(&self.s);
    }
}

impl Decodable for PEip4844Tx {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 14)?;
        Ok(Self {
            chain_id: rlp.val_at(0)?,
            nonce: rlp.val_at(1)?,
            max_priority_fee_per_gas: rlp.val_at(2)?,
            max_fee_per_gas: rlp.val_at(3)?,
            gas: rlp.val_at(4)?,
            to: rlp.val_at(5)?,
            value: rlp.val_at(6)?,
            data: rlp.val_at(7)?,
            access_list: rlp.list_at(8)?,
            max_fee_per_blob_gas: rlp.val_at(9)?,
            blob_versioned_hashes: rlp.list_at(10)?,
            y_parity: rlp.val_at(11)?,
            r: rlp.val_at(12)?,
            s: rlp.val_at(13)?,
        })
    }
}

/// Appends `type || rlp(inner)` as one RLP string: the network form of a
/// typed transaction or receipt.
fn append_typed<T: Encodable>(s: &mut RlpStream, ty: u8, inner: &T) {
    let fields = ::rlp::encode(inner);
    let mut typed = Vec::with_capacity(1 + fields.len());
    typed.push(ty);
    typed.extend_from_slice(&fields);
    s.encoder().encode_value(&typed);
}

/// Splits a typed item's string into its type byte and its single RLP list.
fn typed_payload<'a>(rlp: &Rlp<'a>) -> Result<(u8, Rlp<'a>), DecoderError> {
    let data = rlp.data()?;
    let (&ty, payload) = data.split_first().ok_or(DecoderError::RlpIsTooShort)?;
    let inner = Rlp::new(payload);
    if inner.payload_info()?.total() != payload.len() {
        return Err(DecoderError::RlpInconsistentLengthAndData);
    }
    Ok((ty, inner))
}

/// A signed transaction in a block body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PTx {
    Legacy(PLegacyTx),
    Eip1559(PEip1559Tx),
    Eip4844(PEip4844Tx),
}

impl Encodable for PTx {
    fn rlp_append(&self, s: &mut RlpStream) {
        match self {
            Self::Legacy(tx) => tx.rlp_append(s),
            Self::Eip1559(tx) => append_typed(s, 2, tx),
            Self::Eip4844(tx) => append_typed(s, 3, tx),
        }
    }
}

impl Decodable for PTx {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        if rlp.is_list() {
            return Ok(Self::Legacy(PLegacyTx::decode(rlp)?));
        }
        match typed_payload(rlp)? {
            (2, inner) => Ok(Self::Eip1559(PEip1559Tx::decode(&inner)?)),
            (3, inner) => Ok(Self::Eip4844(PEip4844Tx::decode(&inner)?)),
            _ => Err(DecoderError::Custom("unsupported transaction type")),
        }
    }
}

fn access_list(list: &[(Address, Vec<B256>)]) -> Vec<PAccessItem> {
    list.iter()
        .map(|(address, keys)| PAccessItem {
            address: address.into(),
            storage_keys: keys.iter().map(H256::from).collect(),
        })
        .collect()
}

impl From<&TxEnvelope> for PTx {
    fn from(tx: &TxEnvelope) -> Self {
        match tx {
            TxEnvelope::Legacy(signed) => {
                let (t, sig) = (signed.tx(), signed.signature());
                let v = to_eip155_value(sig.v(), t.chain_id);
                Self::Legacy(PLegacyTx {
                    nonce: t.nonce,
                    gas_price: t.gas_price,
                    gas: t.gas_limit,
                    action: (&t.to).into(),
                    value: (&t.value).into(),
                    data: t.input.to_vec(),
                    v: u64::try_from(v).expect("v of a mainnet-sized chain id fits u64"),
                    r: (&sig.r()).into(),
                    s: (&sig.s()).into(),
                })
            }
            TxEnvelope::Eip1559(signed) => {
                let (t, sig) = (signed.tx(), signed.signature());
                let list: Vec<_> = t
                    .access_list
                    .iter()
                    .map(|i| (i.address, i.storage_keys.clone()))
                    .collect();
                Self::Eip1559(PEip1559Tx {
                    chain_id: t.chain_id,
                    nonce: t.nonce,
                    max_priority_fee_per_gas: t.max_priority_fee_per_gas,
                    max_fee_per_gas: t.max_fee_per_gas,
                    gas: t.gas_limit,
                    action: (&t.to).into(),
                    value: (&t.value).into(),
                    data: t.input.to_vec(),
                    access_list: access_list(&list),
                    y_parity: sig.v(),
                    r: (&sig.r()).into(),
                    s: (&sig.s()).into(),
                })
            }
            TxEnvelope::Eip4844(signed) => {
                let sig = signed.signature();
                let TxEip4844Variant::TxEip4844(t) = signed.tx() else {
                    panic!("blob transactions with sidecars are not mirrored");
                };
                let list: Vec<_> = t
                    .access_list
                    .iter()
                    .map(|i| (i.address, i.storage_keys.clone()))
                    .collect();
                Self::Eip4844(PEip4844Tx {
                    chain_id: t.chain_id,
                    nonce: t.nonce,
                    max_priority_fee_per_gas: t.max_priority_fee_per_gas,
                    max_fee_per_gas: t.max_fee_per_gas,
                    gas: t.gas_limit,
                    to: (&t.to).into(),
                    value: (&t.value).into(),
                    data: t.input.to_vec(),
                    access_list: access_list(&list),
                    max_fee_per_blob_gas: t.max_fee_per_blob_gas,
                    blob_versioned_hashes: t.blob_versioned_hashes.iter().map(H256::from).collect(),
                    y_parity: sig.v(),
                    r: (&sig.r()).into(),
                    s: (&sig.s()).into(),
                })
            }
            other => panic!(
                "transaction type {} is not mirrored",
                alloy_consensus::Typed2718::ty(other)
            ),
        }
    }
}

/// A block header; the fork fields are appended while present (no gaps).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PHeader {
    pub(crate) parent_hash: H256,
    pub(crate) ommers_hash: H256,
    pub(crate) beneficiary: H160,
    pub(crate) state_root: H256,
    pub(crate) transactions_root: H256,
    pub(crate) receipts_root: H256,
    pub(crate) logs_bloom: Bloom,
    pub(crate) difficulty: Word,
    pub(crate) number: u64,
    pub(crate) gas_limit: u64,
    pub(crate) gas_used: u64,
    pub(crate) timestamp: u64,
    pub(crate) extra_data: Vec<u8>,
    pub(crate) mix_hash: H256,
    pub(crate) nonce: H64,
    pub(crate) base_fee_per_gas: Option<u64>,
    pub(crate) withdrawals_root: Option<H256>,
    pub(crate) blob_gas_used: Option<u64>,
    pub(crate) excess_blob_gas: Option<u64>,
    pub(crate) parent_beacon_block_root: Option<H256>,
    pub(crate) requests_hash: Option<H256>,
    pub(crate) block_access_list_hash: Option<H256>,
    pub(crate) slot_number: Option<u64>,
}
