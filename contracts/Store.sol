// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Store
/// @notice Storage-heavy workload for dyno's EVM benchmarks: `write` touches n
///         distinct storage slots (SSTORE-bound), `read` loads them back (SLOAD-bound).
///         Slot keys are keccak256(seed, i), so different seeds hit fresh slots.
contract Store {
    mapping(bytes32 => uint256) public slots;

    /// @notice Sets slots[keccak256(abi.encode(seed, i))] = i + 1 for i in [0, n).
    function write(uint256 seed, uint256 n) external {
        unchecked {
            for (uint256 i; i < n; ++i) {
                slots[keccak256(abi.encode(seed, i))] = i + 1;
            }
        }
    }

    /// @notice Sum of slots[keccak256(abi.encode(seed, i))] for i in [0, n).
    ///         After write(seed, n) this is n * (n + 1) / 2.
    function read(uint256 seed, uint256 n) external view returns (uint256 sum) {
        unchecked {
            for (uint256 i; i < n; ++i) {
                sum += slots[keccak256(abi.encode(seed, i))];
            }
        }
    }
}
