// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

/// A payer's own contract for tests: makes each of `calls` to `target` in one transaction (several USDC
/// authorizations used at once), reverting with the first call that reverts.
contract Batch {
    function run(address target, bytes[] calldata calls) external {
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, ) = target.call(calls[i]);
            require(ok, "Batch: call reverted");
        }
    }
}
