// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Logs
/// @notice Log-emitting workload for dyno's eth_getLogs benchmarks: `emitTransfers`
///         emits ERC-20 `Transfer` events (same signature and topic as Token's) with
///         distinct, deterministic topics and data and no storage traffic.
contract Logs {
    event Transfer(address indexed from, address indexed to, uint256 value);

    /// @notice For k = start + i, i in [0, n): emits
    ///         Transfer(address(uint160(k)), address(uint160(~k)), k).
    ///         Disjoint [start, start + n) ranges give distinct logs across calls.
    function emitTransfers(uint256 start, uint256 n) external {
        unchecked {
            for (uint256 i; i < n; ++i) {
                uint256 k = start + i;
                emit Transfer(address(uint160(k)), address(uint160(~k)), k);
            }
        }
    }
}
