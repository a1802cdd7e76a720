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

/// The number of fields every header has (up to the nonce).
const HEADER_BASE_FIELDS: usize = 15;

impl Encodable for PHeader {
    fn rlp_append(&self, s: &mut RlpStream) {
        let optional = [
            self.base_fee_per_gas.is_some(),
            self.withdrawals_root.is_some(),
            self.blob_gas_used.is_some(),
            self.excess_blob_gas.is_some(),
            self.parent_beacon_block_root.is_some(),
            self.requests_hash.is_some(),
            self.block_access_list_hash.is_some(),
            self.slot_number.is_some(),
        ];
        let present = optional.iter().filter(|p| **p).count();
        s.begin_list(HEADER_BASE_FIELDS + present)
            .append(&self.parent_hash)
            .append(&self.ommers_hash)
            .append(&self.beneficiary)
            .append(&self.state_root)
            .append(&self.transactions_root)
            .append(&self.receipts_root)
            .append(&self.logs_bloom)
            .append(&self.difficulty)
            .append(&self.number)
            .append(&self.gas_limit)
            .append(&self.gas_used)
            .append(&self.timestamp)
            .append(&self.extra_data)
            .append(&self.mix_hash)
            .append(&self.nonce);
        if let Some(v) = &self.base_fee_per_gas {
            s.append(v);
        }
        if let Some(v) = &self.withdrawals_root {
            s.append(v);
        }
        if let Some(v) = &self.blob_gas_used {
            s.append(v);
        }
        if let Some(v) = &self.excess_blob_gas {
            s.append(v);
        }
        if let Some(v) = &self.parent_beacon_block_root {
            s.append(v);
        }
        if let Some(v) = &self.requests_hash {
            s.append(v);
        }
        if let Some(v) = &self.block_access_list_hash {
            s.append(v);
        }
        if let Some(v) = &self.slot_number {
            s.append(v);
        }
    }
}

/// Field `i` if the list has it.
fn optional_at<T: Decodable>(rlp: &Rlp, items: usize, i: usize) -> Result<Option<T>, DecoderError> {
    if i < items {
        rlp.val_at(i).map(Some)
    } else {
        Ok(None)
    }
}

impl Decodable for PHeader {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        let items = rlp.item_count()?;
        if !(HEADER_BASE_FIELDS..=HEADER_BASE_FIELDS + 8).contains(&items) {
            return Err(DecoderError::RlpIncorrectListLen);
        }
        Ok(Self {
            parent_hash: rlp.val_at(0)?,
            ommers_hash: rlp.val_at(1)?,
            beneficiary: rlp.val_at(2)?,
            state_root: rlp.val_at(3)?,
            transactions_root: rlp.val_at(4)?,
            receipts_root: rlp.val_at(5)?,
            logs_bloom: rlp.val_at(6)?,
            difficulty: rlp.val_at(7)?,
            number: rlp.val_at(8)?,
            gas_limit: rlp.val_at(9)?,
            gas_used: rlp.val_at(10)?,
            timestamp: rlp.val_at(11)?,
            extra_data: rlp.val_at(12)?,
            mix_hash: rlp.val_at(13)?,
            nonce: rlp.val_at(14)?,
            base_fee_per_gas: optional_at(rlp, items, 15)?,
            withdrawals_root: optional_at(rlp, items, 16)?,
            blob_gas_used: optional_at(rlp, items, 17)?,
            excess_blob_gas: optional_at(rlp, items, 18)?,
            parent_beacon_block_root: optional_at(rlp, items, 19)?,
            requests_hash: optional_at(rlp, items, 20)?,
            block_access_list_hash: optional_at(rlp, items, 21)?,
            slot_number: optional_at(rlp, items, 22)?,
        })
    }
}

impl From<&Header> for PHeader {
    fn from(h: &Header) -> Self {
        Self {
            parent_hash: (&h.parent_hash).into(),
            ommers_hash: (&h.ommers_hash).into(),
            beneficiary: (&h.beneficiary).into(),
            state_root: (&h.state_root).into(),
            transactions_root: (&h.transactions_root).into(),
            receipts_root: (&h.receipts_root).into(),
            logs_bloom: Fixed(h.logs_bloom.0.0),
            difficulty: (&h.difficulty).into(),
            number: h.number,
            gas_limit: h.gas_limit,
            gas_used: h.gas_used,
            timestamp: h.timestamp,
            extra_data: h.extra_data.to_vec(),
            mix_hash: (&h.mix_hash).into(),
            nonce: Fixed(h.nonce.0),
            base_fee_per_gas: h.base_fee_per_gas,
            withdrawals_root: h.withdrawals_root.as_ref().map(H256::from),
            blob_gas_used: h.blob_gas_used,
            excess_blob_gas: h.excess_blob_gas,
            parent_beacon_block_root: h.parent_beacon_block_root.as_ref().map(H256::from),
            requests_hash: h.requests_hash.as_ref().map(H256::from),
            block_access_list_hash: h.block_access_list_hash.as_ref().map(H256::from),
            slot_number: h.slot_number,
        }
    }
}

/// An EIP-4895 withdrawal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PWithdrawal {
    pub(crate) index: u64,
    pub(crate) validator_index: u64,
    pub(crate) address: H160,
    pub(crate) amount: u64,
}

impl Encodable for PWithdrawal {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(4)
            .append(&self.index)
            .append(&self.validator_index)
            .append(&self.address)
            .append(&self.amount);
    }
}

impl Decodable for PWithdrawal {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 4)?;
        Ok(Self {
            index: rlp.val_at(0)?,
            validator_index: rlp.val_at(1)?,
            address: rlp.val_at(2)?,
            amount: rlp.val_at(3)?,
        })
    }
}

/// `[transactions, ommers, withdrawals?]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PBody {
    pub(crate) transactions: Vec<PTx>,
    pub(crate) ommers: Vec<PHeader>,
    pub(crate) withdrawals: Option<Vec<PWithdrawal>>,
}

impl Encodable for PBody {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(2 + usize::from(self.withdrawals.is_some()))
            .append_list::<PTx, PTx>(&self.transactions)
            .append_list::<PHeader, PHeader>(&self.ommers);
        if let Some(w) = &self.withdrawals {
            s.append_list::<PWithdrawal, PWithdrawal>(w);
        }
    }
}

impl Decodable for PBody {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        let items = rlp.item_count()?;
        if !(2..=3).contains(&items) {
            return Err(DecoderError::RlpIncorrectListLen);
        }
        Ok(Self {
            transactions: rlp.list_at(0)?,
            ommers: rlp.list_at(1)?,
            withdrawals: if items == 3 {
                Some(rlp.list_at(2)?)
            } else {
                None
            },
        })
    }
}

impl From<&BlockBody<TxEnvelope>> for PBody {
    fn from(b: &BlockBody<TxEnvelope>) -> Self {
        Self {
            transactions: b.transactions.iter().map(PTx::from).collect(),
            ommers: b.ommers.iter().map(PHeader::from).collect(),
            withdrawals: b.withdrawals.as_ref().map(|ws| {
                ws.iter()
                    .map(|w| PWithdrawal {
                        index: w.index,
                        validator_index: w.validator_index,
                        address: (&w.address).into(),
                        amount: w.amount,
                    })
                    .collect()
            }),
        }
    }
}

/// `[address, topics, data]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PLog {
    pub(crate) address: H160,
    pub(crate) topics: Vec<H256>,
    pub(crate) data: Vec<u8>,
}

impl Encodable for PLog {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.begin_list(3)
            .append(&self.address)
            .append_list::<H256, H256>(&self.topics)
            .append(&self.data);
    }
}

impl Decodable for PLog {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 3)?;
        Ok(Self {
            address: rlp.val_at(0)?,
            topics: rlp.list_at(1)?,
            data: rlp.val_at(2)?,
        })
    }
}

/// `[status, cumulativeGasUsed, logsBloom, logs]` of a post-Byzantium
/// receipt, with its transaction type (0 for legacy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PReceipt {
    pub(crate) tx_type: u8,
    pub(crate) success: bool,
    pub(crate) cumulative_gas_used: u64,
    pub(crate) logs_bloom: Bloom,
    pub(crate) logs: Vec<PLog>,
}

/// The receipt's field list, without the type.
struct ReceiptFields<'a>(&'a PReceipt);

impl Encodable for ReceiptFields<'_> {
    fn rlp_append(&self, s: &mut RlpStream) {
        let r = self.0;
        s.begin_list(4)
            .append(&r.success)
            .append(&r.cumulative_gas_used)
            .append(&r.logs_bloom)
            .append_list::<PLog, PLog>(&r.logs);
    }
}

impl PReceipt {
    fn decode_fields(tx_type: u8, rlp: &Rlp) -> Result<Self, DecoderError> {
        expect_items(rlp, 4)?;
        Ok(Self {
            tx_type,
            success: rlp.val_at(0)?,
            cumulative_gas_used: rlp.val_at(1)?,
            logs_bloom: rlp.val_at(2)?,
            logs: rlp.list_at(3)?,
        })
    }
}

impl Encodable for PReceipt {
    fn rlp_append(&self, s: &mut RlpStream) {
        match self.tx_type {
            0 => ReceiptFields(self).rlp_append(s),
            ty => append_typed(s, ty, &ReceiptFields(self)),
        }
    }
}

impl Decodable for PReceipt {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        if rlp.is_list() {
            return Self::decode_fields(0, rlp);
        }
        match typed_payload(rlp)? {
            (ty @ 1..=4, inner) => Self::decode_fields(ty, &inner),
            _ => Err(DecoderError::Custom("unsupported receipt type")),
        }
    }
}

impl From<&ReceiptEnvelope> for PReceipt {
    fn from(r: &ReceiptEnvelope) -> Self {
        let tx_type = r.tx_type() as u8;
        let with_bloom = r
            .as_receipt_with_bloom()
            .expect("every variant has a receipt");
        let Eip658Value::Eip658(success) = with_bloom.receipt.status else {
            panic!("pre-Byzantium post-state receipts are not mirrored");
        };
        Self {
            tx_type,
            success,
            cumulative_gas_used: with_bloom.receipt.cumulative_gas_used,
            logs_bloom: Fixed(with_bloom.logs_bloom.0.0),
            logs: with_bloom
                .receipt
                .logs
                .iter()
                .map(|l| PLog {
                    address: (&l.address).into(),
                    topics: l.topics().iter().map(H256::from).collect(),
                    data: l.data.data.to_vec(),
                })
                .collect(),
        }
    }
}

/// A block's receipt list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PReceipts(pub(crate) Vec<PReceipt>);

impl Encodable for PReceipts {
    fn rlp_append(&self, s: &mut RlpStream) {
        s.append_list::<PReceipt, PReceipt>(&self.0);
    }
}

impl Decodable for PReceipts {
    fn decode(rlp: &Rlp) -> Result<Self, DecoderError> {
        rlp.as_list().map(Self)
    }
}

impl From<&Vec<ReceiptEnvelope>> for PReceipts {
    fn from(rs: &Vec<ReceiptEnvelope>) -> Self {
        Self(rs.iter().map(PReceipt::from).collect())
    }
}
