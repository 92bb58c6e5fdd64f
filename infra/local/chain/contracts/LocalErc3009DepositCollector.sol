// SPDX-License-Identifier: MIT
// The ERC-3009 deposit collector of x402 `batch-settlement`, for the local chain only: our own
// implementation of the `collect` call the escrow (LocalBatchSettlement.sol) makes on a deposit,
// placed at ERC3009_DEPOSIT_COLLECTOR_ADDRESS (0x4020806…0004) where @x402/evm's client signs its
// ReceiveWithAuthorization to and its facilitator points `deposit(…, collector, …)`.
//
// The payer signed ReceiveWithAuthorization(from = payer, to = this collector, value, validAfter,
// validBefore, nonce = keccak256(abi.encode(channelId, salt))), so the authorization can only fund
// that one channel; the collector receives the tokens and passes them on to the escrow.
pragma solidity ^0.8.20;

interface IReceiveWithAuthorization {
    function receiveWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes memory signature
    ) external;
    function transfer(address to, uint256 value) external returns (bool);
}

contract LocalErc3009DepositCollector {
    /// The escrow (its code is placed there too); the only caller allowed, so nobody can spend an authorization elsewhere.
    address public constant x402BatchSettlement = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;

    error OnlyX402BatchSettlement();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external {
        if (msg.sender != x402BatchSettlement) revert OnlyX402BatchSettlement();
        (uint256 validAfter, uint256 validBefore, uint256 salt, bytes memory signature) =
            abi.decode(collectorData, (uint256, uint256, uint256, bytes));
        bytes32 nonce = keccak256(abi.encode(channelId, salt));
        IReceiveWithAuthorization(token).receiveWithAuthorization(payer, address(this), amount, validAfter, validBefore, nonce, signature);
        require(IReceiveWithAuthorization(token).transfer(x402BatchSettlement, amount), "collector: transfer failed");
    }
}
