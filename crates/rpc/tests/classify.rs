//! Error classification against the messages real nodes send.

use dyno_rpc::{ErrorClass, RpcError, classify_rpc, parse_response};

use ErrorClass::*;

/// (node, code, message, class): wordings as geth/reth, anvil (foundry) and
/// hardhat (EDR and the older TypeScript node) send them. Rows marked
/// "(seen)" were captured from geth 1.17.8, anvil 1.7.1 and hardhat 3.17.0
/// answering `examples/probe.rs`.
const TABLE: &[(&str, i64, &str, ErrorClass)] = &[
    // nonce too low
    (
        "geth",
        -32000,
        "nonce too low: next nonce 5, tx nonce 3",
        NonceTooLow,
    ),
    ("geth", -32000, "nonce too low", NonceTooLow),
    ("anvil", -32003, "nonce too low", NonceTooLow),
    (
        "hardhat",
        -32000,
        "Nonce too low. Expected nonce to be 5 but got 3.",
        NonceTooLow,
    ),
    (
        "hardhat-edr",
        -32000,
        "Transaction nonce too low. Expected nonce to be at least 5 but got 3.",
        NonceTooLow,
    ),
    (
        "openethereum",
        -32010,
        "Transaction nonce is too low. Try incrementing the nonce.",
        NonceTooLow,
    ),
    (
        "nethermind",
        -32010,
        "OldNonce, Current nonce: 5, nonce of rejected tx: 3",
        NonceTooLow,
    ),
    // nonce too high
    ("geth", -32000, "nonce too high", NonceTooHigh),
    ("anvil", -32003, "Nonce too high", NonceTooHigh),
    (
        "hardhat",
        -32000,
        "Nonce too high. Expected nonce to be 0 but got 5. Note that transactions can't be queued when automining.",
        NonceTooHigh,
    ),
    // already known
    ("geth", -32000, "already known", AlreadyKnown),
    (
        "geth-old",
        -32000,
        "known transaction: 0x2c1f2d3a9d2f1b8e2d5e9b1f0f8a5c3b1e4d7a6c9b8e7f6a5d4c3b2a1f0e9d8c",
        AlreadyKnown,
    ),
    (
        "anvil",
        -32003,
        "Tx: [0x2c1f2d3a9d2f1b8e2d5e9b1f0f8a5c3b1e4d7a6c9b8e7f6a5d4c3b2a1f0e9d8c] already Imported",
        AlreadyKnown,
    ),
    (
        "hardhat",
        -32000,
        "Known transaction: 0x2c1f2d3a9d2f1b8e2d5e9b1f0f8a5c3b1e4d7a6c9b8e7f6a5d4c3b2a1f0e9d8c",
        AlreadyKnown,
    ),
    ("nethermind", -32010, "AlreadyKnown", AlreadyKnown),
    // replacement underpriced
    (
        "geth",
        -32000,
        "replacement transaction underpriced",
        ReplacementUnderpriced,
    ),
    (
        "anvil",
        -32003,
        "Tx: [0x2c1f2d3a9d2f1b8e2d5e9b1f0f8a5c3b1e4d7a6c9b8e7f6a5d4c3b2a1f0e9d8c] insufficient gas price to replace existing transaction",
        ReplacementUnderpriced,
    ),
    (
        "hardhat",
        -32000,
        "Replacement transaction underpriced. A gasPrice/maxFeePerGas of at least 22000000000 is necessary to replace the existing transaction with nonce 0.",
        ReplacementUnderpriced,
    ),
    // underpriced / max fee below base fee
    (
        "geth",
        -32000,
        "transaction underpriced: tip needed 1, tip permitted 0",
        Underpriced,
    ),
    ("geth", -32000, "transaction underpriced", Underpriced),
    (
        "geth",
        -32000,
        "max fee per gas less than block base fee: address 0x71562b71999873DB5b286dF957af199Ec94617F7, maxFeePerGas: 1, baseFee: 2",
        Underpriced,
    ),
    (
        "geth",
        -32000,
        "transaction gas price below minimum: gas tip cap 1, minimum needed 2",
        Underpriced,
    ),
    (
        "anvil",
        -32003,
        "max fee per gas less than block base fee",
        Underpriced,
    ),
    (
        "hardhat",
        -32000,
        "Transaction maxFeePerGas (1) is too low for the next block, which has a baseFeePerGas of 2",
        Underpriced,
    ),
    (
        "hardhat",
        -32000,
        "Transaction gasPrice (1) is too low for the next block, which has a baseFeePerGas of 2",
        Underpriced,
    ),
    (
        "nethermind",
        -32010,
        "FeeTooLow, MaxFeePerGas too low.",
        Underpriced,
    ),
    // insufficient funds
    (
        "geth",
        -32000,
        "insufficient funds for gas * price + value: address 0x71562b71999873DB5b286dF957af199Ec94617F7 have 0 want 21000000000000",
        InsufficientFunds,
    ),
    (
        "anvil",
        -32003,
        "Insufficient funds for gas * price + value",
        InsufficientFunds,
    ),
    (
        "anvil",
        -32003,
        "insufficient funds for transfer",
        InsufficientFunds,
    ),
    (
        "hardhat",
        -32000,
        "Sender doesn't have enough funds to send tx. The max upfront cost is: 21000000000000 and the sender's balance is: 0.",
        InsufficientFunds,
    ),
    (
        "hardhat-old",
        -32000,
        "sender doesn't have enough funds to send tx. The upfront cost is: 21000 and the sender's account only has: 0",
        InsufficientFunds,
    ),
    // txpool full
    ("geth", -32000, "txpool is full", TxpoolFull),
    // exceeds block gas limit
    (
        "geth",
        -32000,
        "exceeds block gas limit",
        ExceedsBlockGasLimit,
    ),
    (
        "anvil",
        -32003,
        "Transaction gas limit is greater than the block gas limit, gas_limit: 31000000, cap: 30000000",
        ExceedsBlockGasLimit,
    ),
    (
        "hardhat",
        -32000,
        "Transaction gas limit is 31000000 and exceeds block gas limit of 30000000",
        ExceedsBlockGasLimit,
    ),
    (
        "revm",
        -32003,
        "caller gas limit exceeds the block gas limit",
        ExceedsBlockGasLimit,
    ),
    // intrinsic gas too low
    (
        "geth",
        -32000,
        "intrinsic gas too low: have 20000, want 21000",
        IntrinsicGasTooLow,
    ),
    ("anvil", -32003, "intrinsic gas too low", IntrinsicGasTooLow),
    (
        "hardhat",
        -32000,
        "Transaction requires at least 21000 gas but got 20000",
        IntrinsicGasTooLow,
    ),
    // seen
    (
        "geth 1.17 (seen)",
        -32000,
        "intrinsic gas too low: gas 1, minimum needed 21000",
        IntrinsicGasTooLow,
    ),
    (
        "geth 1.17 (seen)",
        -32000,
        "transaction gas limit too high (cap: 16777216, tx: 16777217)",
        ExceedsBlockGasLimit,
    ),
    (
        "geth 1.17 (seen)",
        -32000,
        "replacement transaction underpriced",
        ReplacementUnderpriced,
    ),
    (
        "geth 1.17 (seen)",
        -32000,
        "tx fee (1750.00 ether) exceeds the configured cap (1.00 ether)",
        RpcOther,
    ),
    (
        "geth 1.17 (seen)",
        -32000,
        "typed transaction too short",
        RpcOther,
    ),
    (
        "anvil 1.7 (seen)",
        -32003,
        "transaction already imported",
        AlreadyKnown,
    ),
    (
        "anvil 1.7 (seen)",
        -32000,
        "intrinsic gas too low",
        IntrinsicGasTooLow,
    ),
    (
        "anvil 1.7 (seen)",
        -32000,
        "intrinsic gas too high -- tx.gas_limit > env.block.gas_limit",
        ExceedsBlockGasLimit,
    ),
    (
        "anvil 1.7 (seen)",
        -32003,
        "Insufficient funds for gas * price + value",
        InsufficientFunds,
    ),
    (
        "anvil 1.7 (seen)",
        -32003,
        "max fee per gas less than block base fee",
        Underpriced,
    ),
    (
        "anvil 1.7 (seen)",
        -32602,
        "Failed to decode transaction",
        RpcOther,
    ),
    (
        "hardhat 3.17 (seen)",
        -32000,
        "Nonce too low. Expected nonce to be 1 but got 0. Note that transactions can't be queued when automining.",
        NonceTooLow,
    ),
    (
        "hardhat 3.17 (seen)",
        -32000,
        "Nonce too high. Expected nonce to be 1 but got 1000. Note that transactions can't be queued when automining.",
        NonceTooHigh,
    ),
    (
        "hardhat 3.17 (seen)",
        -32000,
        "Transaction gas limit is 1000000000000 and exceeds transaction gas cap of 16777216",
        ExceedsBlockGasLimit,
    ),
    (
        "hardhat 3.17 (seen)",
        -32000,
        "Sender doesn't have enough funds to send tx. The max upfront cost is: 1606938044258990275541962092341162602522202993803143747141376 and the sender's balance is: 9999999976744140625000.",
        InsufficientFunds,
    ),
    (
        "hardhat 3.17 (seen)",
        -32000,
        "Transaction maxFeePerGas (1) is too low for the next block, which has a baseFeePerGas of 765701563",
        Underpriced,
    ),
    (
        "hardhat 3.17 (seen)",
        -32000,
        "Transaction requires at least 21000 gas but got 1",
        IntrinsicGasTooLow,
    ),
    (
        "hardhat 3.17 (seen)",
        -32004,
        "Method eth_no_such_method is not supported",
        RpcOther,
    ),
    // other
    (
        "geth",
        -32601,
        "the method eth_foo does not exist/is not available",
        RpcOther,
    ),
    (
        "geth",
        -32602,
        "invalid argument 0: json: cannot unmarshal hex string without 0x prefix",
        RpcOther,
    ),
    (
        "geth",
        3,
        "execution reverted: Ownable: caller is not the owner",
        RpcOther,
    ),
    ("geth", -32000, "invalid sender", RpcOther),
    (
        "geth",
        -32000,
        "max priority fee per gas higher than max fee per gas",
        RpcOther,
    ),
    (
        "geth",
        -32000,
        "future transaction tries to replace pending",
        RpcOther,
    ),
    ("anvil", -32003, "invalid chain id for signer", RpcOther),
    ("proxy", -32005, "limit exceeded", RpcOther),
    ("any", -32603, "", RpcOther),
];

#[test]
fn real_node_messages_classify() {
    let mut failures = Vec::new();
    for &(node, code, message, want) in TABLE {
        let got = classify_rpc(code, message);
        if got != want {
            failures.push(format!("{node} {code} {message:?}: got {got}, want {want}"));
        }
        // The same through a parsed JSON-RPC error object.
        let body = serde_json::json!({
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": code, "message": message}
        });
        let err = parse_response(body.to_string().as_bytes()).unwrap_err();
        assert!(matches!(err, RpcError::Rpc { .. }), "{err:?}");
        assert_eq!(err.class(), want, "{node} {message:?}");
    }
    assert!(
        failures.is_empty(),
        "misclassified:\n{}",
        failures.join("\n")
    );
}

#[test]
fn every_node_class_has_a_case() {
    for class in ErrorClass::ALL.into_iter().filter(|c| !c.is_transport()) {
        assert!(
            TABLE.iter().any(|&(.., c)| c == class),
            "no table case for {class}"
        );
    }
}
