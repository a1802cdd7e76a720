//! The pre-state every generated block or chain starts from: funded
//! senders, the three contracts deployed, and token balances handed out,
//! written directly as a genesis allocation; and the genesis header.

use alloy_consensus::{EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Header};
use alloy_primitives::{Address, B256, Bytes, U256, address, keccak256};
use dyno_workload::{BuildError, Ctx};
use revm::bytecode::Bytecode;

use super::signer::Signer;
use crate::tx::{Contract, contract};

/// The seed every sender key derives from.
pub const SENDER_SEED: &[u8] = b"dyno block senders";
/// `Token` (ERC-20) in the genesis state.
pub const TOKEN: Address = address!("0x000000000000000000000000000000000000700c");
/// `Store` in the genesis state.
pub const STORE: Address = address!("0x0000000000000000000000000000000000005706");
/// `Loop` in the genesis state.
pub const LOOP: Address = address!("0x000000000000000000000000000000000000100b");
/// Every sender's ether: 1 000 ETH.
pub const SENDER_BALANCE: u128 = 1_000_000_000_000_000_000_000;
/// Every sender's token balance (10^6 tokens of 18 decimals).
pub const TOKEN_BALANCE: u128 = 1_000_000_000_000_000_000_000_000;
/// The genesis base fee: 1 gwei.
pub const GENESIS_BASE_FEE: u64 = 1_000_000_000;
/// The genesis timestamp.
pub const GENESIS_TIME: u64 = 1_750_000_000;

/// The system contracts at their addresses, with their EIPs' code.
pub static SYSTEM_CONTRACTS: [(Address, &Bytes); 4] = [
    (
        alloy_eips::eip4788::BEACON_ROOTS_ADDRESS,
        &alloy_eips::eip4788::BEACON_ROOTS_CODE,
    ),
    (
        alloy_eips::eip2935::HISTORY_STORAGE_ADDRESS,
        &alloy_eips::eip2935::HISTORY_STORAGE_CODE,
    ),
    (
        alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS,
        &alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_CODE,
    ),
    (
        alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS,
        &alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_CODE,
    ),
];

/// The compiled contracts blocks call.
#[derive(Debug, Clone)]
pub struct Contracts {
    /// `contracts/Token.sol`.
    pub token: Contract,
    /// `contracts/Store.sol`.
    pub store: Contract,
    /// `contracts/Loop.sol`.
    pub looper: Contract,
}

impl Contracts {
    /// Load `contracts/build/{Token,Store,Loop}.json`.
    pub fn load(ctx: &Ctx) -> Result<Self, BuildError> {
        Ok(Self {
            token: contract(ctx, "Token")?,
            store: contract(ctx, "Store")?,
            looper: contract(ctx, "Loop")?,
        })
    }
}

/// The storage slot of `balanceOf[holder]` in `Token` (solc's layout:
/// `totalSupply` at slot 0, the `balanceOf` mapping at slot 1).
pub fn token_balance_slot(holder: Address) -> U256 {
    let mut preimage = [0u8; 64];
    preimage[12..32].copy_from_slice(holder.as_slice());
    preimage[63] = 1;
    U256::from_be_bytes(keccak256(preimage).0)
}

/// A funded genesis and its header.
#[derive(Debug, Clone)]
pub struct Genesis {
    /// The pre-state.
    pub world: super::world::World,
    /// Block 0.
    pub header: Header,
    /// The funded senders, each holding [`SENDER_BALANCE`] wei and
    /// [`TOKEN_BALANCE`] tokens.
    pub senders: Vec<Signer>,
    /// The token's creation code (for deployment transactions).
    pub token_initcode: Vec<u8>,
}

impl Genesis {
    /// `senders` funded accounts and the contracts; block 0 has gas limit
    /// `gas_limit`, uses half of it (so the next base fee stays 1 gwei) and
    /// has base fee [`GENESIS_BASE_FEE`].
    pub fn new(contracts: &Contracts, senders: u64, gas_limit: u64) -> Self {
        Self::with_alloc(contracts, senders, gas_limit, &[])
    }

    /// The same genesis with its blocks run under `fork` (its state and
    /// header are the same: no fork dyno makes adds a genesis field).
    pub fn under(mut self, fork: super::fork::Fork) -> Self {
        self.world.set_fork(fork);
        self
    }

    /// [`Genesis::new`] with more accounts (op-isolation contracts and
    /// the pre-state they touch), each as a genesis file lists it.
    pub fn with_alloc(
        contracts: &Contracts,
        senders: u64,
        gas_limit: u64,
        extra: &[super::world::Allocated],
    ) -> Self {
        let senders = Signer::derive_many(SENDER_SEED, senders);
        let mut world = super::world::World::new();
        for s in &senders {
            world.insert_account(s.address, U256::from(SENDER_BALANCE), 0, None, []);
        }
        let code = |c: &Contract| Some(Bytecode::new_raw(Bytes::from(c.deployed.clone())));
        let supply = U256::from(TOKEN_BALANCE) * U256::from(senders.len());
        let balances = senders
            .iter()
            .map(|s| (token_balance_slot(s.address), U256::from(TOKEN_BALANCE)));
        world.insert_account(
            TOKEN,
            U256::ZERO,
            1,
            code(&contracts.token),
            std::iter::once((U256::ZERO, supply)).chain(balances),
        );
        world.insert_account(STORE, U256::ZERO, 1, code(&contracts.store), []);
        world.insert_account(LOOP, U256::ZERO, 1, code(&contracts.looper), []);
        // The system contracts every Prague client calls (EIP-4788, 2935,
        // 7002, 7251), with the code their EIPs deploy, as a client's
        // genesis holds them: nonce 1, no balance, empty storage.
        for (address, system) in SYSTEM_CONTRACTS {
            let code = Some(Bytecode::new_raw(system.clone()));
            world.insert_account(address, U256::ZERO, 1, code, []);
        }
        for a in extra {
            let code = (!a.code.is_empty()).then(|| Bytecode::new_raw(a.code.clone()));
            world.insert_account(
                a.address,
                a.balance,
                a.nonce,
                code,
                a.storage.iter().copied(),
            );
        }
        let header = block_zero(&mut world, gas_limit);
        Self {
            world,
            header,
            senders,
            token_initcode: contracts.token.bytecode.clone(),
        }
    }
}

/// Block 0 on `world`: gas limit `gas_limit`, half of it used (so the next
/// base fee stays [`GENESIS_BASE_FEE`]), a Prague header (no blobs, a zero
/// beacon root, no requests); its hash recorded in `world` as block 0's.
fn block_zero(world: &mut super::world::World, gas_limit: u64) -> Header {
    let header = Header {
        parent_hash: B256::ZERO,
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        state_root: world.state_root(),
        transactions_root: EMPTY_ROOT_HASH,
        receipts_root: EMPTY_ROOT_HASH,
        gas_limit,
        gas_used: gas_limit / 2,
        timestamp: GENESIS_TIME,
        extra_data: Bytes::from_static(b"dyno genesis"),
        base_fee_per_gas: Some(GENESIS_BASE_FEE),
        withdrawals_root: Some(EMPTY_ROOT_HASH),
        // A Prague genesis: no blobs, a zero beacon root, no requests.
        blob_gas_used: Some(0),
        excess_blob_gas: Some(0),
        parent_beacon_block_root: Some(B256::ZERO),
        requests_hash: Some(alloy_eips::eip7685::EMPTY_REQUESTS_HASH),
        ..Header::default()
    };
    world.set_block_hash(0, header.hash_slow());
    header
}

/// The genesis of a dev node that builds the blocks itself (`dyno load
/// --record`): the system contracts every Prague client calls, `funded`
/// accounts holding their balances, and block 0 as [`Genesis::new`] makes
/// it.
pub fn funded(funded: &[(Address, U256)], gas_limit: u64) -> (super::world::World, Header) {
    let mut world = super::world::World::new();
    for (address, balance) in funded {
        world.insert_account(*address, *balance, 0, None, []);
    }
    for (address, system) in SYSTEM_CONTRACTS {
        let code = Some(Bytecode::new_raw(system.clone()));
        world.insert_account(address, U256::ZERO, 1, code, []);
    }
    let header = block_zero(&mut world, gas_limit);
    (world, header)
}
