/**
 * The local chain's batch-settlement contracts and block time: our escrow look-alike hashes
 * channels, vouchers and claim batches exactly as @x402/evm does (EIP-712), enforces the claim
 * rules on chain (ceiling, balance, cumulative replay, signatures, who may claim), its collector
 * takes deposits only from the escrow, and X402_LOCAL_BLOCK_TIME makes transactions wait for a
 * block instead of being mined at once.
 */
import { BATCH_SETTLEMENT_ADDRESS, claimBatchTypes, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, voucherTypes } from '@x402/evm';
import { computeChannelId } from '@x402/evm/batch-settlement/client';
import { createWalletClient, encodeAbiParameters, getAddress, hashTypedData, http, keccak256, parseEther, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain, localBaseSepolia } from '../../../infra/local/chain/chain';
import { blockTimeOf } from '../../../infra/local/chain/hook';
import { channelIdOf, escrowDomain } from '../../../shared/payment/batch/voucher';

let chain: LocalChain;
beforeAll(async () => {
  chain = await startLocalChain();
});
afterAll(async () => chain?.close());

const config = () => ({
  payer: chain.accounts[2]!.address,
  payerAuthorizer: chain.accounts[2]!.address,
  receiver: chain.accounts[1]!.address,
  receiverAuthorizer: chain.accounts[3]!.address,
  token: chain.asset,
  withdrawDelay: 900,
  salt: `0x${'ab'.repeat(32)}` as Hex,
});
const escrow = () => ({ address: BATCH_SETTLEMENT_ADDRESS, abi: chain.contracts.LocalBatchSettlement.abi }) as const;
const wallet = (i: number) => createWalletClient({ account: chain.accounts[i]!, chain: localBaseSepolia(chain.rpcUrl), transport: http(chain.rpcUrl) });
const read = (functionName: string, args: unknown[]) => chain.publicClient.readContract({ ...escrow(), functionName, args } as never) as Promise<unknown>;

const signVoucher = (i: number, channelId: Hex, maxClaimableAmount: bigint) =>
  chain.accounts[i]!.signTypedData({
    domain: escrowDomain(chain.chainId),
    types: voucherTypes,
    primaryType: 'Voucher',
    message: { channelId, maxClaimableAmount },
  });

describe('local chain: batch-settlement escrow look-alike', () => {
  it('hashes a channel config, a voucher and a claim batch as @x402/evm and the service do', async () => {
    const c = config();
    const id = computeChannelId(c, chain.network);
    expect(await read('getChannelId', [c])).toBe(id);
    expect(channelIdOf(c, chain.chainId)).toBe(id);
    expect(await read('getVoucherDigest', [id, 12_345n])).toBe(
      hashTypedData({
        domain: escrowDomain(chain.chainId),
        types: voucherTypes,
        primaryType: 'Voucher',
        message: { channelId: id, maxClaimableAmount: 12_345n },
      }),
    );
    const rows = [
      { voucher: { channel: c, maxClaimableAmount: 30n }, signature: '0x' as Hex, totalClaimed: 20n },
      { voucher: { channel: { ...c, salt: `0x${'cd'.repeat(32)}` as Hex }, maxClaimableAmount: 7n }, signature: '0x' as Hex, totalClaimed: 7n },
    ];
    const expected = hashTypedData({
      domain: escrowDomain(chain.chainId),
      types: claimBatchTypes,
      primaryType: 'ClaimBatch',
      message: {
        claims: rows.map((r) => ({
          channelId: computeChannelId(r.voucher.channel, chain.network),
          maxClaimableAmount: r.voucher.maxClaimableAmount,
          totalClaimed: r.totalClaimed,
        })),
      },
    });
    expect(await read('getClaimBatchDigest', [rows])).toBe(expected);
  });

  it('takes a deposit through its collector, then enforces the claim rules: ceiling, balance, signature, receiver side only; a replayed claim changes nothing', async () => {
    const c = config();
    const id = computeChannelId(c, chain.network);
    // The payer's ReceiveWithAuthorization to the collector, its nonce bound to the channel (as the official client signs it).
    const salt = `0x${'11'.repeat(32)}` as Hex;
    const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
    const nonce = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [id, BigInt(salt)]));
    const authorization = await chain.accounts[2]!.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: chain.chainId, verifyingContract: chain.asset },
      types: {
        ReceiveWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'ReceiveWithAuthorization',
      message: { from: c.payer, to: getAddress(ERC3009_DEPOSIT_COLLECTOR_ADDRESS), value: 100n, validAfter: 0n, validBefore, nonce },
    });
    const collectorData = encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }],
      [0n, validBefore, BigInt(salt), authorization],
    );
    const payer0 = await chain.balanceOf(c.payer);
    await chain.publicClient.waitForTransactionReceipt({
      hash: await wallet(0).writeContract({ ...escrow(), functionName: 'deposit', args: [c, 100n, ERC3009_DEPOSIT_COLLECTOR_ADDRESS, collectorData] } as never),
    });
    expect(await read('channels', [id])).toEqual([100n, 0n]);
    expect(payer0 - (await chain.balanceOf(c.payer))).toBe(100n);

    const receiverSide = wallet(3);
    const claim = (total: bigint, max: bigint, sig: Hex) =>
      receiverSide.writeContract({
        ...escrow(),
        functionName: 'claim',
        args: [[{ voucher: { channel: c, maxClaimableAmount: max }, signature: sig, totalClaimed: total }]],
      } as never);
    await expect(claim(101n, 101n, await signVoucher(2, id, 101n))).rejects.toThrow(/ClaimExceedsBalance|revert/);
    await expect(claim(11n, 10n, await signVoucher(2, id, 10n))).rejects.toThrow(/ClaimExceedsCeiling|revert/);
    await expect(claim(10n, 10n, await signVoucher(5, id, 10n))).rejects.toThrow(/InvalidSignature|revert/);
    // Only the receiver or its authorizer may call claim().
    await expect(
      wallet(5).writeContract({
        ...escrow(),
        functionName: 'claim',
        args: [[{ voucher: { channel: c, maxClaimableAmount: 10n }, signature: await signVoucher(2, id, 10n), totalClaimed: 10n }]],
      } as never),
    ).rejects.toThrow(/NotAuthorizedToClaim|revert/);

    const voucher = await signVoucher(2, id, 40n);
    const first = await chain.publicClient.waitForTransactionReceipt({ hash: await claim(40n, 40n, voucher) });
    expect(first.logs).toHaveLength(1);
    expect(await read('channels', [id])).toEqual([100n, 40n]);
    // The same claim again, or an older one: no event, nothing moves (never claimed twice).
    for (const total of [40n, 30n]) {
      const again = await chain.publicClient.waitForTransactionReceipt({ hash: await claim(total, 40n, voucher) });
      expect(again.logs).toEqual([]);
    }
    expect(await read('channels', [id])).toEqual([100n, 40n]);
    expect(await read('receivers', [c.receiver, chain.asset])).toEqual([40n, 0n]);
  });

  it('its deposit collector takes a deposit only when the escrow asks', async () => {
    const collector = { address: ERC3009_DEPOSIT_COLLECTOR_ADDRESS, abi: chain.contracts.LocalErc3009DepositCollector.abi } as const;
    await expect(
      wallet(2).writeContract({
        ...collector,
        functionName: 'collect',
        args: [chain.accounts[2]!.address, chain.asset, 1n, `0x${'00'.repeat(32)}`, '0x'],
      } as never),
    ).rejects.toThrow(/OnlyX402BatchSettlement|revert/);
    expect(getAddress((await chain.publicClient.readContract({ ...collector, functionName: 'x402BatchSettlement' } as never)) as string)).toBe(
      getAddress(BATCH_SETTLEMENT_ADDRESS),
    );
  });
});

describe('local chain: block time (X402_LOCAL_BLOCK_TIME)', () => {
  it('reads the setting: unset or empty is 0 (a block per transaction), seconds up to 60, anything else refused', () => {
    expect(blockTimeOf(undefined)).toBe(0);
    expect(blockTimeOf(' ')).toBe(0);
    expect(blockTimeOf('2')).toBe(2);
    for (const bad of ['two', '-1', '61', 'NaN']) expect(() => blockTimeOf(bad)).toThrow(/X402_LOCAL_BLOCK_TIME/);
  });

  it('with a block time a transaction waits in the pool for the next block; without one it is mined at once', async () => {
    const slow = await startLocalChain({ blockTime: 60 });
    try {
      const w = createWalletClient({ account: slow.accounts[0]!, chain: localBaseSepolia(slow.rpcUrl), transport: http(slow.rpcUrl) });
      const hash = await w.sendTransaction({ to: slow.accounts[1]!.address, value: parseEther('1') });
      await expect(slow.publicClient.getTransactionReceipt({ hash })).rejects.toThrow(/could not be found/);
      await slow.mine();
      expect((await slow.publicClient.getTransactionReceipt({ hash })).status).toBe('success');
    } finally {
      await slow.close();
    }
    const hash = await wallet(0).sendTransaction({ to: chain.accounts[1]!.address, value: 1n });
    expect((await chain.publicClient.getTransactionReceipt({ hash })).status).toBe('success');
  });
});
