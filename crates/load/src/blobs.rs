//! The blobs of `blob` transactions (EIP-4844): their content, KZG
//! commitments and proofs, computed with c-kzg (the library revm's point
//! evaluation precompile uses here) over the Ethereum trusted setup.
//!
//! Which proofs a sidecar carries depends on the fork: before Osaka one
//! KZG proof per blob (EIP-4844, sidecar version 0); from Osaka 128 cell
//! proofs per blob (EIP-7594, version 1), which is what geth's pool takes
//! once its chain is on Osaka. Cell proofs cost far more to compute than a
//! commitment, so each distinct blob is computed once for the run (in
//! parallel, before the timed phase) and shared by the transactions that
//! carry it; [`Blobs::per_tx`] says how many each transaction has.

use alloy_eips::eip4844::{BlobTransactionSidecar, Bytes48, kzg_to_versioned_hash};
use alloy_eips::eip7594::{BlobTransactionSidecarEip7594, BlobTransactionSidecarVariant};
use alloy_primitives::{B256, keccak256};
use serde::{Deserialize, Serialize};

/// Blob gas of one blob (2^17).
pub const GAS_PER_BLOB: u64 = alloy_eips::eip4844::DATA_GAS_PER_BLOB;
/// Bytes in a blob.
pub const BYTES_PER_BLOB: usize = alloy_eips::eip4844::BYTES_PER_BLOB;
/// The most blobs one transaction carries (EIP-7594's per-transaction cap).
pub const MAX_PER_TX: usize = 6;

/// Which proofs a sidecar carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// One KZG proof per blob (EIP-4844; before Osaka).
    BlobProofs,
    /// 128 cell proofs per blob (EIP-7594; Osaka on).
    CellProofs,
}

impl Form {
    /// The name in results and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Form::BlobProofs => "blob-proofs",
            Form::CellProofs => "cell-proofs",
        }
    }
}

/// Why blobs could not be made.
#[derive(Debug, thiserror::Error)]
#[error("computing KZG commitments and proofs with c-kzg: {0}")]
pub struct BlobError(String);

/// One blob with its commitment and proofs.
#[derive(Debug, Clone)]
pub struct Made {
    /// The blob's bytes.
    pub blob: Box<alloy_eips::eip4844::Blob>,
    /// Its KZG commitment.
    pub commitment: Bytes48,
    /// Its proofs: one (blob proof) or 128 (cell proofs).
    pub proofs: Vec<Bytes48>,
    /// `0x01 ‖ sha256(commitment)[1..]`.
    pub versioned_hash: B256,
}

/// The content of blob `k` of a run: pseudo-random bytes (keccak-256 of
/// the tag, `k` and a counter), each 32-byte field element with its first
/// byte zero so that it is below the BLS modulus, as a blob's must be.
pub fn content(k: u64) -> Box<alloy_eips::eip4844::Blob> {
    let mut out = Box::new(alloy_eips::eip4844::Blob::ZERO);
    for (j, element) in out.0.chunks_mut(32).enumerate() {
        let h = keccak256(
            [
                b"dyno-load-blob".as_slice(),
                &k.to_be_bytes(),
                &(j as u64).to_be_bytes(),
            ]
            .concat(),
        );
        element[1..].copy_from_slice(&h[1..]);
    }
    out
}

/// Commitment and proofs of blob `k` in `form`.
pub fn make(k: u64, form: Form) -> Result<Made, BlobError> {
    let settings = c_kzg::ethereum_kzg_settings(8);
    let err = |e: c_kzg::Error| BlobError(format!("{e:?}"));
    let blob = content(k);
    let ck = c_kzg::Blob::from_bytes(blob.as_slice()).map_err(err)?;
    let commitment = settings
        .blob_to_kzg_commitment(&ck)
        .map_err(err)?
        .to_bytes();
    let proofs = match form {
        Form::BlobProofs => vec![Bytes48::from(
            *settings
                .compute_blob_kzg_proof(&ck, &commitment)
                .map_err(err)?
                .to_bytes(),
        )],
        Form::CellProofs => {
            let (_, proofs) = settings.compute_cells_and_kzg_proofs(&ck).map_err(err)?;
            proofs
                .iter()
                .map(|p| Bytes48::from(*p.to_bytes()))
                .collect()
        }
    };
    Ok(Made {
        blob,
        versioned_hash: kzg_to_versioned_hash(commitment.as_slice()),
        commitment: Bytes48::from(*commitment),
        proofs,
    })
}

/// The distinct blobs of a run, and which of them each blob transaction
/// carries.
#[derive(Debug, Clone)]
pub struct Blobs {
    /// The proofs' form.
    pub form: Form,
    /// The distinct blobs.
    pub made: Vec<Made>,
}

impl Blobs {
    /// How many blobs the `n`-th blob transaction of a run carries: 1 to
    /// [`MAX_PER_TX`] in turn, so every size is in the load.
    pub fn per_tx(n: u64) -> usize {
        1 + (n % MAX_PER_TX as u64) as usize
    }

    /// Make `distinct` blobs on `threads` threads.
    pub fn make(distinct: usize, form: Form, threads: usize) -> Result<Self, BlobError> {
        let threads = threads.max(1);
        let mut slots: Vec<Option<Result<Made, BlobError>>> = (0..distinct).map(|_| None).collect();
        let chunk = distinct.div_ceil(threads).max(1);
        std::thread::scope(|s| {
            for (c, part) in slots.chunks_mut(chunk).enumerate() {
                s.spawn(move || {
                    for (j, slot) in part.iter_mut().enumerate() {
                        *slot = Some(make((c * chunk + j) as u64, form));
                    }
                });
            }
        });
        let made = slots
            .into_iter()
            .map(|s| s.unwrap_or_else(|| Err(BlobError("a blob was not computed".into()))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { form, made })
    }

    /// The blobs (indices into [`Blobs::made`]) of the `n`-th blob
    /// transaction: [`Blobs::per_tx`] of them, consecutive from where the
    /// previous transaction's ended, wrapping round the distinct ones.
    pub fn of_tx(&self, n: u64) -> Vec<usize> {
        // Blobs carried before the n-th: whole cycles of 1..=6, then the
        // start of one (closed form: pre-signing calls this per transaction).
        let k = MAX_PER_TX as u64;
        let (cycles, rest) = (n / k, n % k);
        let start = cycles * k * (k + 1) / 2 + rest * (rest + 1) / 2;
        let len = self.made.len().max(1) as u64;
        (0..Self::per_tx(n) as u64)
            .map(|j| ((start + j) % len) as usize)
            .collect()
    }

    /// The versioned hashes of blobs `which`.
    pub fn hashes(&self, which: &[usize]) -> Vec<B256> {
        which.iter().map(|&k| self.made[k].versioned_hash).collect()
    }

    /// The sidecar of blobs `which`, in this set's form.
    pub fn sidecar(&self, which: &[usize]) -> BlobTransactionSidecarVariant {
        let blobs = which.iter().map(|&k| *self.made[k].blob).collect();
        let commitments = which.iter().map(|&k| self.made[k].commitment).collect();
        let proofs = which
            .iter()
            .flat_map(|&k| self.made[k].proofs.iter().copied())
            .collect();
        match self.form {
            Form::BlobProofs => BlobTransactionSidecarVariant::Eip4844(
                BlobTransactionSidecar::new(blobs, commitments, proofs),
            ),
            Form::CellProofs => BlobTransactionSidecarVariant::Eip7594(
                BlobTransactionSidecarEip7594::new(blobs, commitments, proofs),
            ),
        }
    }
}

/// The blob base fee of a block whose excess blob gas is `excess`
/// (EIP-4844's `fake_exponential(1, excess, fraction)`), with `fraction`
/// the fork's update fraction.
pub fn base_fee(excess: u64, fraction: u64) -> u128 {
    alloy_eips::eip4844::fake_exponential(1, u128::from(excess), u128::from(fraction.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_cycle_one_to_six_and_blobs_are_shared_round_the_set() {
        let sizes: Vec<usize> = (0..8).map(Blobs::per_tx).collect();
        assert_eq!(sizes, vec![1, 2, 3, 4, 5, 6, 1, 2]);
        let set = Blobs {
            form: Form::BlobProofs,
            made: (0..4).map(|k| make(k, Form::BlobProofs).unwrap()).collect(),
        };
        assert_eq!(set.of_tx(0), vec![0]);
        assert_eq!(set.of_tx(1), vec![1, 2]);
        assert_eq!(set.of_tx(2), vec![3, 0, 1]);
    }

    #[test]
    fn commitments_and_proofs_verify_and_a_wrong_one_does_not() {
        let settings = c_kzg::ethereum_kzg_settings(0);
        let blob = make(3, Form::BlobProofs).unwrap();
        let ck = c_kzg::Blob::from_bytes(blob.blob.as_slice()).unwrap();
        let commitment = c_kzg::Bytes48::new(blob.commitment.0);
        let proof = c_kzg::Bytes48::new(blob.proofs[0].0);
        assert!(
            settings
                .verify_blob_kzg_proof(&ck, &commitment, &proof)
                .unwrap()
        );
        let other = make(4, Form::BlobProofs).unwrap();
        let wrong = c_kzg::Bytes48::new(other.proofs[0].0);
        assert!(
            !settings
                .verify_blob_kzg_proof(&ck, &commitment, &wrong)
                .unwrap()
        );
        assert_eq!(blob.versioned_hash[0], 0x01);

        let cells = make(3, Form::CellProofs).unwrap();
        assert_eq!(cells.commitment, blob.commitment);
        assert_eq!(cells.proofs.len(), 128);
        let (cs, _) = settings.compute_cells_and_kzg_proofs(&ck).unwrap();
        let commitments = vec![commitment; 128];
        let indices: Vec<u64> = (0..128).collect();
        let proofs: Vec<c_kzg::Bytes48> = cells
            .proofs
            .iter()
            .map(|p| c_kzg::Bytes48::new(p.0))
            .collect();
        assert!(
            settings
                .verify_cell_kzg_proof_batch(&commitments, &indices, &cs[..], &proofs)
                .unwrap()
        );
        let mut bad = proofs.clone();
        bad.swap(0, 1);
        assert!(
            !settings
                .verify_cell_kzg_proof_batch(&commitments, &indices, &cs[..], &bad)
                .unwrap()
        );
    }

    #[test]
    fn the_blob_base_fee_follows_eip_4844() {
        // EIP-4844's own example points: no excess costs the minimum, 1
        // wei; the fee grows by e per update fraction of excess.
        assert_eq!(base_fee(0, 5_007_716), 1);
        assert_eq!(base_fee(5_007_716, 5_007_716), 2);
        assert_eq!(base_fee(10 * 5_007_716, 5_007_716), 22_026);
    }
}
