/**
 * The batch lane's storage port: @x402/evm's `ChannelStorage` (get, list, updateChannel, which
 * the library's channel manager uses for claims, settlement and refunds) plus what the lane and
 * the settlement job need beside it:
 *
 *   - `change`: the same atomic read-modify-write as updateChannel, with the sale records of the
 *     change written in the same atomic write, so revenue in the store moves exactly with the
 *     channel's charged amount (never one without the other);
 *   - open sales: every sale stays "open" until the claim transaction that covers it is known,
 *     then it is stamped with that transaction and closed;
 *   - the job's cursor: the block from which the settlement job reads claim events.
 *
 * Implementations: DynamoChannelStore (credit table, conditional writes on a version attribute)
 * and MemoryChannelStore (one process, for unit tests).
 */
import type { Channel, ChannelStorage, ChannelUpdateResult } from '@x402/evm/batch-settlement/server';
import type { SaleKey, SaleRecord } from '../sales';

/** A channel as this service stores it: the library's record plus the refund fence. */
interface StoredChannel extends Channel {
  /**
   * Epoch ms until which the settlement job is closing the channel with a cooperative refund: the
   * lane accepts no voucher on it meanwhile, so nothing is charged that the refund cannot claim.
   */
  closingUntil?: number;
  /**
   * The reservation (pendingId) whose commit made the channel's last voucher count: a commit retried
   * after a lost acknowledgement recognises its own write (and another request's as not its own).
   */
  committedBy?: string;
  /** The settlement job's last failed claim of this channel: why, how often in a row, and when it tries again. */
  claimFailure?: ClaimFailure;
}

/** A channel whose claim failed: recorded on it, retried with backoff, the other channels claimed meanwhile. */
interface ClaimFailure {
  reason: string;
  attempts: number;
  /** Epoch ms of the last failure, and of the earliest next try. */
  at: number;
  retryAt: number;
}

/** A batch-lane sale: which channel paid it and the channel's charged amount after the call. */
interface BatchSale extends SaleRecord {
  lane: 'x402-batch';
  extra: Readonly<{ channel_id: string; cumulative_amount: string }>;
}

/**
 * The answer a committed voucher paid for, kept with the commit (one per channel, the latest): the
 * same voucher sent again gets these bytes, so a buyer whose answer was lost (the store applied the
 * commit but its acknowledgement never came) fetches what it paid for by re-sending the request,
 * and a re-send never buys a second, fresher call.
 */
interface DeliveredAnswer {
  channelId: string;
  /** The voucher's cumulative amount (the channel's charged amount after the call). */
  cumulative: string;
  /** The resource bought (accepts[].resource): a re-send for another path gets nothing. */
  path: string;
  body: Uint8Array;
}

/** What a change does: the channel's new record (undefined: delete) and the sales it books. */
interface ChannelChange {
  channel: StoredChannel | undefined;
  /** Written in the same atomic write as the channel, only when the channel changes. */
  sales?: readonly BatchSale[];
  /** The answer the change's sale pays for, written in the same atomic write (replacing the channel's previous one). */
  answer?: DeliveredAnswer;
}

/** A sale whose claim transaction is not yet known. */
interface OpenSale {
  channelId: string;
  /** The channel's charged amount after the call (atomic units): the claim that reaches it covers the sale. */
  cumulative: bigint;
  amount: string;
  sale: SaleKey;
}

/** What the lane needs of the store: a channel, a change to it (with the sales it books), the answer its last voucher paid. */
type ChannelLaneStore = Pick<BatchChannelStore, 'get' | 'change' | 'answerOf'>;

interface BatchChannelStore extends ChannelStorage {
  get(channelId: string): Promise<StoredChannel | undefined>;
  list(): Promise<StoredChannel[]>;
  /** The library's atomic read-modify-write (its manager calls it), over stored channels. */
  updateChannel(channelId: string, update: (current: StoredChannel | undefined) => StoredChannel | undefined): Promise<ChannelUpdateResult>;
  /**
   * Atomically inspects and changes a channel, booking the change's sales in the same write.
   * `update` may run more than once (a concurrent writer forces a re-read and a retry), so it must
   * be free of side effects; returning `current` itself leaves everything unchanged.
   * @param seed a record this store returned (from get, or the result of a change): the first
   *   attempt starts from it instead of reading the channel again; if it is stale, that attempt's
   *   write is refused and the change retries from a fresh read, so a seed only saves a read
   */
  change(channelId: string, update: (current: StoredChannel | undefined) => ChannelChange, seed?: StoredChannel): Promise<ChannelUpdateResult>;
  /** The answer the channel's latest committed voucher paid for (undefined when none was kept). */
  answerOf(channelId: string): Promise<DeliveredAnswer | undefined>;
  /** Every open sale, by channel and cumulative amount (tests and small tools; the settlement job pages). */
  openSales(): Promise<OpenSale[]>;
  /**
   * One page of the open sales in key order (channel, then cumulative): at most `limit`, from after
   * `after` (a page's `next`); no `next` when the last page has been read.
   */
  openSalesPage(after: string | undefined, limit: number): Promise<{ sales: OpenSale[]; next?: string }>;
  /** One page of a channel's open sales with a cumulative amount in (above, upTo], lowest first. */
  openSalesOf(channelId: string, range: { above: bigint; upTo: bigint }, limit: number): Promise<OpenSale[]>;
  /** Stamps sales with their claim transaction and closes them; a sale already closed is left alone. */
  closeSales(sales: readonly OpenSale[], transaction: string): Promise<void>;
  /** The block the settlement job reads claim events from; undefined before its first run. */
  jobCursor(): Promise<bigint | undefined>;
  setJobCursor(block: bigint): Promise<void>;
  /** Where an interrupted settlement pass stopped (settle-job.ts PassState); undefined when the last pass finished. */
  passState(): Promise<string | undefined>;
  setPassState(state: string | undefined): Promise<void>;
}

/** Whether a reservation still holds the channel. */
const isPendingLive = (channel: Pick<Channel, 'pendingRequest'> | undefined, nowMs: number): boolean =>
  channel?.pendingRequest !== undefined && channel.pendingRequest.expiresAt > nowMs;

/** Whether the settlement job is closing the channel. */
const isClosing = (channel: Pick<StoredChannel, 'closingUntil'> | undefined, nowMs: number): boolean =>
  channel?.closingUntil !== undefined && channel.closingUntil > nowMs;

/** Lower-case canonical channel id, or a thrown error (an id is hashed into keys, never trusted raw). */
const normalizeChannelId = (channelId: string): string => {
  if (!/^0x[0-9a-fA-F]{64}$/.test(channelId)) throw new Error('invalid channel id');
  return channelId.toLowerCase();
};

/** The open sale a booked sale leaves behind until its claim is known. */
const openSaleOf = (sale: BatchSale, key: SaleKey): OpenSale => ({
  channelId: normalizeChannelId(sale.extra.channel_id),
  cumulative: BigInt(sale.extra.cumulative_amount),
  amount: sale.amount,
  sale: key,
});

export { isPendingLive, isClosing, normalizeChannelId, openSaleOf };
export type { BatchChannelStore, ClaimFailure, StoredChannel, BatchSale, ChannelChange, DeliveredAnswer, OpenSale, ChannelLaneStore };
