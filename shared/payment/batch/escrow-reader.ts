/**
 * What the settlement job reads from the x402 batch-settlement escrow (BATCH_SETTLEMENT_ADDRESS):
 * channel states (one Multicall3 round trip per few hundred channels), the receiver's claimed and
 * settled totals, and the `Claimed` events that tell which transaction claimed a channel up to
 * which cumulative amount. The chain is the source of truth the job recovers from.
 */
import { BATCH_SETTLEMENT_ADDRESS } from '@x402/evm';
import { createPublicClient, getAddress, http, parseAbi, type Address, type Hex, type PublicClient } from 'viem';

/** The escrow's functions and event the job uses, as the x402 escrow declares them. */
const ESCROW_ABI = parseAbi([
  'function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)',
  'function pendingWithdrawals(bytes32 channelId) view returns (uint128 amount, uint40 initiatedAt)',
  'function refundNonce(bytes32 channelId) view returns (uint256)',
  'function receivers(address receiver, address token) view returns (uint128 totalClaimed, uint128 totalSettled)',
  'event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimAmount, uint128 newTotalClaimed)',
]);

const MULTICALL3: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';
/** Channels per Multicall3 round trip (three calls each). */
const CHANNELS_PER_READ = 100;
/** Channel ids per getLogs topic filter, and blocks per getLogs range (public RPCs cap both). */
const IDS_PER_LOG_QUERY = 100;
const BLOCKS_PER_LOG_QUERY = 5_000n;

/** A channel as the escrow holds it. */
interface EscrowChannel {
  balance: bigint;
  totalClaimed: bigint;
  /** When the payer started a timed withdrawal (unix seconds); 0 when none is pending. */
  withdrawRequestedAt: number;
  refundNonce: number;
}

/** One claim of a channel: the transaction that raised its claimed total to `totalClaimed`. */
interface ClaimEvent {
  channelId: string;
  totalClaimed: bigint;
  transaction: Hex;
  blockNumber: bigint;
  logIndex: number;
}

interface EscrowReader {
  blockNumber(): Promise<bigint>;
  /** The escrow's state of each channel, by lower-case id. */
  channels(channelIds: readonly string[]): Promise<Map<string, EscrowChannel>>;
  /** What has been claimed for, and paid out to, a receiver in a token. */
  receiverTotals(receiver: Address, token: Address): Promise<{ totalClaimed: bigint; totalSettled: bigint }>;
  /** Claims of these channels in a block range (inclusive), oldest first. */
  claimEvents(channelIds: readonly string[], fromBlock: bigint, toBlock: bigint): Promise<ClaimEvent[]>;
}

const chunk = <T>(xs: readonly T[], n: number): T[][] => Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, i * n + n));

/**
 * The escrow over a viem public client.
 * @param rpc an RPC URL (X402_RPC_URL, or the network's public RPC) or a ready client (tests)
 */
const viemEscrowReader = (rpc: string | PublicClient): EscrowReader => {
  const client = typeof rpc === 'string' ? (createPublicClient({ transport: http(rpc, { retryCount: 1 }) }) as PublicClient) : rpc;
  const escrow = { address: getAddress(BATCH_SETTLEMENT_ADDRESS), abi: ESCROW_ABI } as const;
  return {
    blockNumber: () => client.getBlockNumber(),
    channels: async (ids) => {
      const out = new Map<string, EscrowChannel>();
      for (const part of chunk(ids, CHANNELS_PER_READ)) {
        const results: unknown[] = await client.multicall({
          multicallAddress: MULTICALL3,
          allowFailure: false,
          contracts: part.flatMap((id) => [
            { ...escrow, functionName: 'channels', args: [id as Hex] },
            { ...escrow, functionName: 'pendingWithdrawals', args: [id as Hex] },
            { ...escrow, functionName: 'refundNonce', args: [id as Hex] },
          ]),
        });
        part.forEach((id, i) => {
          const [balance, totalClaimed] = results[3 * i] as readonly [bigint, bigint];
          const [, initiatedAt] = results[3 * i + 1] as readonly [bigint, number];
          out.set(id.toLowerCase(), { balance, totalClaimed, withdrawRequestedAt: Number(initiatedAt), refundNonce: Number(results[3 * i + 2] as bigint) });
        });
      }
      return out;
    },
    receiverTotals: async (receiver, token) => {
      const [totalClaimed, totalSettled] = await client.readContract({ ...escrow, functionName: 'receivers', args: [getAddress(receiver), getAddress(token)] });
      return { totalClaimed, totalSettled };
    },
    claimEvents: async (ids, fromBlock, toBlock) => {
      const out: ClaimEvent[] = [];
      for (const part of chunk(ids, IDS_PER_LOG_QUERY)) {
        for (let from = fromBlock; from <= toBlock; from += BLOCKS_PER_LOG_QUERY) {
          const to = from + BLOCKS_PER_LOG_QUERY - 1n < toBlock ? from + BLOCKS_PER_LOG_QUERY - 1n : toBlock;
          const logs = await client.getLogs({ ...escrow, event: ESCROW_ABI[4], args: { channelId: part as Hex[] }, fromBlock: from, toBlock: to });
          for (const log of logs) {
            out.push({
              channelId: String(log.args.channelId).toLowerCase(),
              totalClaimed: log.args.newTotalClaimed!,
              transaction: log.transactionHash!,
              blockNumber: log.blockNumber!,
              logIndex: log.logIndex!,
            });
          }
        }
      }
      return out.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
    },
  };
};

export { viemEscrowReader };
export type { EscrowReader, EscrowChannel, ClaimEvent };
