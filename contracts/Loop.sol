// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Loop
/// @notice Compute-bound workload for dyno's EVM benchmarks: a tight loop of
///         cheap arithmetic with no storage or memory traffic.
contract Loop {
    /// @notice Runs n iterations of acc = acc * 31 + i (wrapping, mod 2**256).
    function spin(uint256 n) external pure returns (uint256 acc) {
        unchecked {
            for (uint256 i; i < n; ++i) {
                acc = acc * 31 + i;
            }
        }
    }
}
