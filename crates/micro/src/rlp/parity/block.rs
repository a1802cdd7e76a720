//! Headers, withdrawals, bodies, logs and receipts, field for field.

use super::*;

/// The number of fields every header has (up to the nonce).
pub(crate) const HEADER_BASE_FIELDS: usize = 15;

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
pub(crate) fn optional_at<T: Decodable>(
    rlp: &Rlp,
    items: usize,
    i: usize,
) -> Result<Option<T>, DecoderError> {
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
pub(crate) struct ReceiptFields<'a>(&'a PReceipt);

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
    pub(crate) fn decode_fields(tx_type: u8, rlp: &Rlp) -> Result<Self, DecoderError> {
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
