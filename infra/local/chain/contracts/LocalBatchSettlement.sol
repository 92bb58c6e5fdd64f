// SPDX-License-Identifier: MIT
// An escrow of x402 `batch-settlement` channels for the local chain only: our own implementation of
// the interface that @x402/evm's batch-settlement client, server and facilitator call at
// BATCH_SETTLEMENT_ADDRESS (0x4020074e…0003). Same functions, events, storage getters and EIP-712
// types (domain "x402 Batch Settlement" / "1"), so the official code cannot tell it apart; written
// here from the scheme's specification (specs/schemes/batch-settlement/scheme_batch_settlement_evm.md).
//
// Its runtime code is placed at that address with evm_setAccountCode, so no constructor ever runs:
// the EIP-712 domain is computed from block.chainid and address(this) on every call, and nothing
// is kept in immutables. The reentrancy lock is an ordinary storage slot (ganache 7 has no EIP-1153
// transient storage).
//
// Money rules it enforces, each one a revert:
//   - a claim never exceeds the voucher's signed ceiling nor the channel's escrow;
//   - claims are cumulative: a claim at or below what is already claimed changes nothing;
//   - a payer's timed withdrawal completes only after the channel's withdrawDelay, and takes only
//     escrow that is not claimed;
//   - refunds go to the payer, are capped at unclaimed escrow, and spend a refund nonce.
pragma solidity ^0.8.20;

interface IBatchDepositCollector {
    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata collectorData) external;
}

interface IBalanceAndTransfer {
    function balanceOf(address who) external view returns (uint256);
    function transfer(address to, uint256 value) external returns (bool);
}

interface IERC1271Wallet {
    function isValidSignature(bytes32 hash, bytes memory signature) external view returns (bytes4);
}

contract LocalBatchSettlement {
    struct ChannelConfig {
        address payer;
        address payerAuthorizer;
        address receiver;
        address receiverAuthorizer;
        address token;
        uint40 withdrawDelay;
        bytes32 salt;
    }

    struct Voucher {
        ChannelConfig channel;
        uint128 maxClaimableAmount;
    }

    /// One claim row: the payer's voucher, its signature, and the cumulative total now claimed.
    struct VoucherClaim {
        Voucher voucher;
        bytes signature;
        uint128 totalClaimed;
    }

    struct Escrow {
        uint128 balance;
        uint128 totalClaimed;
    }

    struct Withdrawal {
        uint128 amount;
        uint40 initiatedAt;
    }

    struct ReceiverTotals {
        uint128 totalClaimed;
        uint128 totalSettled;
    }

    uint40 public constant MIN_WITHDRAW_DELAY = 900;
    uint40 public constant MAX_WITHDRAW_DELAY = 2592000;

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("x402 Batch Settlement");
    bytes32 private constant VERSION_HASH = keccak256("1");

    bytes32 public constant CHANNEL_CONFIG_TYPEHASH = keccak256(
        "ChannelConfig(address payer,address payerAuthorizer,address receiver,address receiverAuthorizer,address token,uint40 withdrawDelay,bytes32 salt)"
    );
    bytes32 public constant VOUCHER_TYPEHASH = keccak256("Voucher(bytes32 channelId,uint128 maxClaimableAmount)");
    bytes32 public constant REFUND_TYPEHASH = keccak256("Refund(bytes32 channelId,uint256 nonce,uint128 amount)");
    bytes32 public constant CLAIM_ENTRY_TYPEHASH =
        keccak256("ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)");
    bytes32 public constant CLAIM_BATCH_TYPEHASH = keccak256(
        "ClaimBatch(ClaimEntry[] claims)ClaimEntry(bytes32 channelId,uint128 maxClaimableAmount,uint128 totalClaimed)"
    );

    mapping(bytes32 => Escrow) public channels;
    mapping(bytes32 => uint256) public refundNonce;
    mapping(bytes32 => Withdrawal) public pendingWithdrawals;
    mapping(address => mapping(address => ReceiverTotals)) public receivers;
    uint256 private locked;

    event ChannelCreated(bytes32 indexed channelId, ChannelConfig config);
    event ChannelClosed(bytes32 indexed channelId, ChannelConfig config);
    event Deposited(bytes32 indexed channelId, address indexed sender, uint128 amount, uint128 newBalance);
    event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed);
    event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount);
    event Refunded(bytes32 indexed channelId, address indexed sender, uint128 amount);
    event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 finalizeAfter);
    event WithdrawFinalized(bytes32 indexed channelId, address indexed sender, uint128 amount);

    error InvalidChannel();
    error ZeroDeposit();
    error DepositOverflow();
    error InvalidSignature();
    error NotReceiverAuthorizer();
    error NotAuthorizedToClaim();
    error NotAuthorizedToRefund();
    error ClaimExceedsCeiling();
    error ClaimExceedsBalance();
    error WithdrawalAlreadyPending();
    error WithdrawalNotPending();
    error NotAuthorizedToFinalizeWithdraw();
    error WithdrawDelayNotElapsed();
    error NothingToWithdraw();
    error WithdrawAmountExceedsAvailable();
    error WithdrawDelayOutOfRange();
    error EmptyBatch();
    error DepositCollectionFailed();
    error InvalidCollector();
    error InvalidRefundNonce();
    error ZeroRefund();
    error Reentrancy();
    error TransferFailed();

    modifier lock() {
        if (locked == 1) revert Reentrancy();
        locked = 1;
        _;
        locked = 0;
    }

    // ----- channel identity and digests -----

    function getChannelId(ChannelConfig calldata config) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(CHANNEL_CONFIG_TYPEHASH, config)));
    }

    function getVoucherDigest(bytes32 channelId, uint128 maxClaimableAmount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(VOUCHER_TYPEHASH, channelId, maxClaimableAmount)));
    }

    function getRefundDigest(bytes32 channelId, uint256 nonce, uint128 amount) public view returns (bytes32) {
        return _typedDataHash(keccak256(abi.encode(REFUND_TYPEHASH, channelId, nonce, amount)));
    }

    /// EIP-712 hash of ClaimBatch{claims: ClaimEntry[]}: an array member is the keccak of its elements' struct hashes.
    function getClaimBatchDigest(VoucherClaim[] calldata voucherClaims) public view returns (bytes32) {
        bytes memory packed = new bytes(32 * voucherClaims.length);
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            VoucherClaim calldata row = voucherClaims[i];
            bytes32 entry = keccak256(
                abi.encode(CLAIM_ENTRY_TYPEHASH, getChannelId(row.voucher.channel), row.voucher.maxClaimableAmount, row.totalClaimed)
            );
            assembly {
                mstore(add(add(packed, 32), mul(i, 32)), entry)
            }
        }
        return _typedDataHash(keccak256(abi.encode(CLAIM_BATCH_TYPEHASH, keccak256(packed))));
    }

    // ----- deposits -----

    function deposit(ChannelConfig calldata config, uint128 amount, address collector, bytes calldata collectorData) external lock {
        if (
            config.payer == address(0) || config.receiver == address(0) || config.receiverAuthorizer == address(0)
                || config.token == address(0)
        ) revert InvalidChannel();
        if (config.withdrawDelay < MIN_WITHDRAW_DELAY || config.withdrawDelay > MAX_WITHDRAW_DELAY) revert WithdrawDelayOutOfRange();
        if (amount == 0) revert ZeroDeposit();
        if (collector == address(0)) revert InvalidCollector();

        bytes32 id = getChannelId(config);
        Escrow storage e = channels[id];
        if (uint256(e.balance) + amount > type(uint128).max) revert DepositOverflow();
        bool firstFunds = e.balance == 0 && e.totalClaimed == 0;

        // The collector pulls the payer's tokens here; the balance check catches a short or failed pull.
        uint256 before = IBalanceAndTransfer(config.token).balanceOf(address(this));
        IBatchDepositCollector(collector).collect(config.payer, config.token, amount, id, collectorData);
        if (IBalanceAndTransfer(config.token).balanceOf(address(this)) != before + amount) revert DepositCollectionFailed();

        e.balance += amount;
        if (firstFunds) emit ChannelCreated(id, config);
        emit Deposited(id, msg.sender, amount, e.balance);
    }

    // ----- claims and settlement -----

    function claim(VoucherClaim[] calldata voucherClaims) external lock {
        if (voucherClaims.length == 0) revert EmptyBatch();
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            ChannelConfig calldata c = voucherClaims[i].voucher.channel;
            if (msg.sender != c.receiver && msg.sender != c.receiverAuthorizer) revert NotAuthorizedToClaim();
            _applyClaim(voucherClaims[i]);
        }
    }

    function claimWithSignature(VoucherClaim[] calldata voucherClaims, bytes calldata authorizerSignature) external lock {
        if (voucherClaims.length == 0) revert EmptyBatch();
        address authorizer = voucherClaims[0].voucher.channel.receiverAuthorizer;
        if (!_validSignature(authorizer, getClaimBatchDigest(voucherClaims), authorizerSignature)) revert InvalidSignature();
        for (uint256 i = 0; i < voucherClaims.length; i++) {
            if (voucherClaims[i].voucher.channel.receiverAuthorizer != authorizer) revert NotReceiverAuthorizer();
            _applyClaim(voucherClaims[i]);
        }
    }

    function settle(address receiver, address token) external lock {
        ReceiverTotals storage r = receivers[receiver][token];
        uint128 due = r.totalClaimed - r.totalSettled;
        if (due == 0) return;
        r.totalSettled = r.totalClaimed;
        _send(token, receiver, due);
        emit Settled(receiver, token, msg.sender, due);
    }

    // ----- the payer's timed withdrawal -----

    function initiateWithdraw(ChannelConfig calldata config, uint128 amount) external lock {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert InvalidChannel();
        if (amount == 0) revert NothingToWithdraw();
        bytes32 id = getChannelId(config);
        Withdrawal storage w = pendingWithdrawals[id];
        if (w.initiatedAt != 0) revert WithdrawalAlreadyPending();
        Escrow storage e = channels[id];
        if (amount > e.balance - e.totalClaimed) revert WithdrawAmountExceedsAvailable();
        w.amount = amount;
        w.initiatedAt = uint40(block.timestamp);
        emit WithdrawInitiated(id, amount, uint40(block.timestamp) + config.withdrawDelay);
    }

    function finalizeWithdraw(ChannelConfig calldata config) external lock {
        if (msg.sender != config.payer && msg.sender != config.payerAuthorizer) revert NotAuthorizedToFinalizeWithdraw();
        bytes32 id = getChannelId(config);
        Withdrawal storage w = pendingWithdrawals[id];
        if (w.initiatedAt == 0) revert WithdrawalNotPending();
        if (block.timestamp < uint256(w.initiatedAt) + config.withdrawDelay) revert WithdrawDelayNotElapsed();

        // Claims recorded during the delay win: only unclaimed escrow leaves.
        Escrow storage e = channels[id];
        uint128 unclaimed = e.balance - e.totalClaimed;
        uint128 out = w.amount < unclaimed ? w.amount : unclaimed;
        delete pendingWithdrawals[id];
        e.balance -= out;
        emit WithdrawFinalized(id, msg.sender, out);
        if (e.balance == 0 && e.totalClaimed == 0) emit ChannelClosed(id, config);
        if (out > 0) _send(config.token, config.payer, out);
    }

    // ----- cooperative refunds (receiver side) -----

    function refund(ChannelConfig calldata config, uint128 amount) external lock {
        if (msg.sender != config.receiver && msg.sender != config.receiverAuthorizer) revert NotAuthorizedToRefund();
        _refund(config, amount);
    }

    function refundWithSignature(ChannelConfig calldata config, uint128 amount, uint256 nonce, bytes calldata receiverAuthorizerSignature)
        external
        lock
    {
        bytes32 id = getChannelId(config);
        if (nonce != refundNonce[id]) revert InvalidRefundNonce();
        if (!_validSignature(config.receiverAuthorizer, getRefundDigest(id, nonce, amount), receiverAuthorizerSignature)) {
            revert InvalidSignature();
        }
        _refund(config, amount);
    }

    /// Runs several calls of this contract in one transaction (the facilitator claims and refunds together).
    function multicall(bytes[] calldata data) external returns (bytes[] memory results) {
        results = new bytes[](data.length);
        for (uint256 i = 0; i < data.length; i++) {
            (bool ok, bytes memory ret) = address(this).delegatecall(data[i]);
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
            results[i] = ret;
        }
    }

    // ----- internals -----

    function _applyClaim(VoucherClaim calldata row) internal {
        bytes32 id = getChannelId(row.voucher.channel);
        Escrow storage e = channels[id];
        // Cumulative: replaying an applied (or older) claim is a no-op, never a second payment.
        if (row.totalClaimed <= e.totalClaimed) return;
        if (row.totalClaimed > row.voucher.maxClaimableAmount) revert ClaimExceedsCeiling();
        if (row.totalClaimed > e.balance) revert ClaimExceedsBalance();

        bytes32 digest = getVoucherDigest(id, row.voucher.maxClaimableAmount);
        address payerAuthorizer = row.voucher.channel.payerAuthorizer;
        bool signed = payerAuthorizer != address(0)
            ? _recover(digest, row.signature) == payerAuthorizer
            : _validSignature(row.voucher.channel.payer, digest, row.signature);
        if (!signed) revert InvalidSignature();

        uint128 delta = row.totalClaimed - e.totalClaimed;
        e.totalClaimed = row.totalClaimed;
        receivers[row.voucher.channel.receiver][row.voucher.channel.token].totalClaimed += delta;
        emit Claimed(id, msg.sender, delta, row.totalClaimed);
    }

    function _refund(ChannelConfig calldata config, uint128 amount) internal {
        if (amount == 0) revert ZeroRefund();
        bytes32 id = getChannelId(config);
        // The nonce moves on every refund, even one that finds nothing to return.
        refundNonce[id] += 1;
        Escrow storage e = channels[id];
        uint128 unclaimed = e.balance - e.totalClaimed;
        uint128 out = amount < unclaimed ? amount : unclaimed;
        if (out == 0) return;
        e.balance -= out;
        Withdrawal storage w = pendingWithdrawals[id];
        if (w.initiatedAt != 0) {
            if (out >= w.amount) delete pendingWithdrawals[id];
            else w.amount -= out;
        }
        emit Refunded(id, msg.sender, out);
        if (e.balance == 0 && e.totalClaimed == 0) emit ChannelClosed(id, config);
        _send(config.token, config.payer, out);
    }

    function _send(address token, address to, uint256 value) internal {
        (bool ok, bytes memory ret) = token.call(abi.encodeWithSelector(IBalanceAndTransfer.transfer.selector, to, value));
        if (!ok || (ret.length > 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }

    function _typedDataHash(bytes32 structHash) internal view returns (bytes32) {
        bytes32 domain = keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    /// An EOA's 65-byte signature (low s), or an ERC-1271 wallet's answer.
    function _validSignature(address signer, bytes32 digest, bytes calldata signature) internal view returns (bool) {
        if (signer.code.length == 0) return signer != address(0) && _recover(digest, signature) == signer;
        (bool ok, bytes memory ret) =
            signer.staticcall(abi.encodeWithSelector(IERC1271Wallet.isValidSignature.selector, digest, signature));
        return ok && ret.length >= 32 && abi.decode(ret, (bytes4)) == IERC1271Wallet.isValidSignature.selector;
    }

    function _recover(bytes32 digest, bytes calldata signature) internal pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return address(0);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        return ecrecover(digest, v, r, s);
    }
}
