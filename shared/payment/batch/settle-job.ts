/**
 * The batch lane's scheduled settlement (functions/settle-batches.ts, every few minutes): one pass
 * of @x402/evm's channel manager one-shot operations (never its interval runner: a Lambda does not
 * stay up), framed by reads of the escrow so that a pass interrupted anywhere is finished by the
 * next one from chain state:
 *
 *   1. sync     each stored channel's mirror from the escrow (balance, claimed total, withdrawal,
 *               refund nonce). A claim that went on chain but whose store update was lost shows up
 *               here as a claimed total ahead of the store: the store takes the chain's, so the
 *               manager never submits that claim again (never double-claimed);
 *   2. claim    every voucher charged beyond the claimed total, in batches per receiver (the pay-to
 *               address the channel was opened to: moving the pay-to address strands nothing). A
 *               batch that fails is split into its channels; a channel whose claim fails is
 *               recorded on it (reason, attempts) and retried with backoff while the rest are
 *               claimed, except a channel whose payer requested a withdrawal, which is tried on
 *               every pass (the escrow's withdrawal delay is the deadline). The sales a claim
 *               covers are stamped with its transaction at once;
 *   3. refund   channels idle for a day, fenced first so that no voucher is accepted while the
 *               refund (which claims what is charged and returns the rest) is under way;
 *   4. settle   each receiver whose escrow holds claimed funds not yet paid out, one by one;
 *   5. stamp    every sale still open gets the claim transaction that covers it, read from the
 *               escrow's Claimed events since the job's cursor (a pass interrupted between a claim
 *               and its stamp; never lost: an unstamped sale keeps the cursor where it is).
 *
 * At volume (settle-settings.ts): open sales are read a page at a time (never all at once), claim
 * transactions and sale closings run in parallel up to a bound, and a pass told to stop (its
 * Lambda's time running out) finishes the work it started, pays out what is claimed, skips the
 * rest and saves where it stopped (store.passState): the next pass claims from the first channel left and continues the
 * stamp scan from its page. Nothing is claimed twice across the stop: step 1 reads the chain first.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FacilitatorClient } from '@x402/core/http';
import {
  BatchSettlementChannelManager,
  BatchSettlementEvmScheme,
  type ClaimResult,
  type RefundResult,
  type SettleResult,
} from '@x402/evm/batch-settlement/server';
import { getAddress, isAddressEqual, type Address } from 'viem';
import type { Config } from '../../config';
import { mapLimit } from '../../concurrency/map-limit';
import { usdcFor } from '../assets';
import { DEFAULT_RPC_URLS } from '../reconcile';
import { type BatchChannelStore, isClosing, isPendingLive, type OpenSale, type StoredChannel } from './channel-store';
import { DynamoChannelStore } from './dynamo-channel-store';
import { type ClaimEvent, type EscrowChannel, type EscrowReader, viemEscrowReader } from './escrow-reader';
import { DEFAULT_SETTLE_PASS, type SettlePassSettings } from './settle-settings';

/** A channel unused this long is refunded (what is charged is claimed, the rest goes back to the payer). */
const DEFAULT_IDLE_REFUND_S = 86_400;
/** How long the lane refuses vouchers on a channel being refunded; past it, a stale mirror forces a chain read. */
const REFUND_FENCE_MS = 10 * 60_000;
/** Vouchers per claim transaction (one Claimed event each; the escrow loops over them). */
const MAX_CLAIMS_PER_BATCH = 100;
/**
 * Backoff of a channel whose claim failed: one pass interval doubled per failure in a row, at most
 * an hour (far inside any withdrawal delay, and a withdrawing channel is tried on every pass anyway).
 */
const CLAIM_RETRY_BASE_MS = 5 * 60_000;
const CLAIM_RETRY_MAX_MS = 60 * 60_000;
const claimRetryDelayMs = (attempts: number): number => Math.min(CLAIM_RETRY_MAX_MS, CLAIM_RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));

type Manager = Pick<BatchSettlementChannelManager, 'claim' | 'settle' | 'refund'>;

interface JobLog {
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
}

interface BatchSettlementDeps {
  store: BatchChannelStore;
  /** The channel manager of the current pay-to address. */
  manager: Manager;
  /** The manager of another receiver (channels opened to an earlier pay-to address). */
  managerFor?: (receiver: Address) => Manager;
  escrow: EscrowReader;
  /** The service's pay-to address and the token it is paid in. */
  receiver: Address;
  token: Address;
  now: () => Date;
  log?: JobLog;
  idleRefundSeconds?: number;
  /** Page size and parallel bounds (settle-settings.ts); defaults when absent. */
  settings?: Partial<SettlePassSettings>;
  /** True once the pass must take no new work (its time is running out); asked between units of work. */
  shouldStop?: () => boolean;
}

/** The backlog the stamp scan leaves: open sales, their USDC atomic units, the oldest one's time. */
interface ScanBacklog {
  sales: number;
  atomic: bigint;
  /** Epoch ms of the oldest open sale; undefined without any. */
  oldestMs?: number;
}

/**
 * Where a stopped pass left off (store.passState, JSON): the first channel whose claim it skipped,
 * and the stamp scan under way (its page, the block it started at, what it has found so far).
 */
interface PassState {
  claimFrom?: string;
  scan?: { after?: string; toBlock: string; unfound: number; sales: number; atomic: string; oldestMs?: number };
}

interface BatchSettlementReport {
  /** Channels whose mirror the chain changed. */
  synced: number;
  /** Of those, channels the chain had claimed further than the store knew (a lost store update). */
  recovered: number;
  claims: ClaimResult[];
  /** Channels whose claim failed in this pass (each recorded on the channel and retried with backoff). */
  claimFailures: Array<{ channelId: string; receiver: Address; reason: string; attempts: number }>;
  /** Channels left for a later pass by their backoff. */
  claimsDeferred: number;
  refunds: RefundResult[];
  refundFailures: number;
  /** The settlement of the current pay-to address. */
  settle?: SettleResult;
  /** Every receiver's settlement in this pass (earlier pay-to addresses included), or why it failed. */
  settlements: Array<{ receiver: Address; transaction?: string; error?: string }>;
  /** Sales stamped with their claim transaction in this pass. */
  stamped: number;
  /** Sales still waiting for a claim (of the part of the stamp scan read so far, when the pass stopped). */
  open: number;
  /** The block the next pass reads claim events from. */
  cursor: bigint;
  /** Whether the pass was told to stop and left work for the next one (saved in store.passState). */
  stopped: boolean;
  /** The open sales after a complete stamp scan (undefined while a scan is under way across passes). */
  backlog?: ScanBacklog;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const receiverOf = (c: StoredChannel): Address => getAddress(c.channelConfig.receiver);

/** The manager of a receiver: the current pay-to's, or one for a channel opened to an earlier one. */
const managerOf = (deps: BatchSettlementDeps, receiver: Address): Manager | undefined =>
  isAddressEqual(receiver, deps.receiver) ? deps.manager : deps.managerFor?.(receiver);

/** The settings of a pass: the deps' over the defaults. */
const settingsOf = (deps: BatchSettlementDeps): SettlePassSettings => ({ ...DEFAULT_SETTLE_PASS, ...deps.settings });

/**
 * The order channels are claimed in: a withdrawing channel first (the escrow's withdrawal delay is
 * its deadline), then by id from `from` round to the start, so that a pass stopped part-way is
 * followed by one that begins with the channels it left (none waits behind the same ones forever).
 */
const claimOrder = (channels: readonly StoredChannel[], from: string | undefined): StoredChannel[] => {
  const key = (c: StoredChannel) => c.channelId.toLowerCase();
  const byId = [...channels].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const start =
    from === undefined
      ? 0
      : Math.max(
          0,
          byId.findIndex((c) => key(c) >= from),
        );
  const rotated = [...byId.slice(start), ...byId.slice(0, start)];
  return [...rotated.filter((c) => c.withdrawRequestedAt !== 0), ...rotated.filter((c) => c.withdrawRequestedAt === 0)];
};

/**
 * Step 2: every claimable channel claimed, by receiver and in batches, up to `claimConcurrency`
 * transactions at once; a failing batch is split so that one bad channel stops only itself. The
 * sales each claim covers are stamped with it at once, a page at a time. Once the pass must stop,
 * no further batch starts: `resumeFrom` is the first channel left.
 */
const claimAll = async (
  deps: BatchSettlementDeps,
  from: string | undefined,
  stopped: () => boolean,
): Promise<{ claims: ClaimResult[]; failures: BatchSettlementReport['claimFailures']; deferred: number; stamped: number; resumeFrom?: string }> => {
  const settings = settingsOf(deps);
  const nowMs = deps.now().getTime();
  const listed = await deps.store.list();
  const claimable = listed.filter((c) => BigInt(c.chargedCumulativeAmount) > BigInt(c.totalClaimed));
  // A channel claimed since its failure (by a later pass, or on chain before the failure was seen) is no longer failing.
  for (const c of listed) {
    if (c.claimFailure && BigInt(c.chargedCumulativeAmount) <= BigInt(c.totalClaimed))
      await deps.store.updateChannel(c.channelId, (cur) => (cur ? { ...cur, claimFailure: undefined } : cur));
  }
  const due = claimOrder(
    claimable.filter((c) => c.withdrawRequestedAt !== 0 || !c.claimFailure || c.claimFailure.retryAt <= nowMs),
    from,
  );
  const claims: ClaimResult[] = [];
  const failures: BatchSettlementReport['claimFailures'] = [];
  let stamped = 0;
  if (!due.length) return { claims, failures, deferred: claimable.length, stamped };

  /** Closes a channel's open sales in (above, upTo] with the claim's transaction, a page at a time. */
  const stampCovered = async (channelId: string, above: bigint, upTo: bigint, transaction: string) => {
    for (let from = above; ; ) {
      const page = await deps.store.openSalesOf(channelId, { above: from, upTo }, settings.pageSize);
      if (!page.length) return;
      await deps.store.closeSales(page, transaction);
      stamped += page.length;
      if (page.length < settings.pageSize) return;
      from = page.at(-1)!.cumulative;
    }
  };

  /** One claim transaction for these channels; throws what the manager threw. */
  const claimBatch = async (manager: Manager, batch: StoredChannel[]) => {
    const ids = new Set(batch.map((c) => c.channelId.toLowerCase()));
    const results = await manager.claim({
      maxClaimsPerBatch: MAX_CLAIMS_PER_BATCH,
      selectClaimChannels: (channels) => channels.filter((c) => ids.has(c.channelId.toLowerCase())),
    });
    claims.push(...results);
    // The claim covers each channel's sales from its claimed total before to the one after.
    await mapLimit(batch, settings.closeConcurrency, async (c) => {
      const after = await deps.store.get(c.channelId);
      const transaction = results.at(-1)?.transaction;
      if (!after || !transaction) return;
      await stampCovered(c.channelId, BigInt(c.totalClaimed), BigInt(after.totalClaimed), transaction);
      if (after.claimFailure) await deps.store.updateChannel(c.channelId, (cur) => (cur ? { ...cur, claimFailure: undefined } : cur));
    });
  };

  const recordFailure = async (c: StoredChannel, err: unknown) => {
    const reason = errorText(err).slice(0, 300);
    let attempts = 1;
    await deps.store.updateChannel(c.channelId, (cur) => {
      if (!cur) return cur;
      attempts = (cur.claimFailure?.attempts ?? 0) + 1;
      return { ...cur, claimFailure: { reason, attempts, at: nowMs, retryAt: nowMs + claimRetryDelayMs(attempts) } };
    });
    failures.push({ channelId: c.channelId, receiver: receiverOf(c), reason, attempts });
    deps.log?.warn('batch channel claim failed; retried with backoff, the other channels are claimed', {
      channelId: c.channelId,
      reason,
      attempts,
      withdrawing: c.withdrawRequestedAt !== 0,
    });
  };

  // Batches of one receiver each, in claim order.
  const byReceiver = new Map<Address, StoredChannel[]>();
  for (const c of due) byReceiver.set(receiverOf(c), [...(byReceiver.get(receiverOf(c)) ?? []), c]);
  const batches = [...byReceiver].flatMap(([receiver, channels]) =>
    Array.from({ length: Math.ceil(channels.length / MAX_CLAIMS_PER_BATCH) }, (_, i) => ({
      receiver,
      batch: channels.slice(i * MAX_CLAIMS_PER_BATCH, (i + 1) * MAX_CLAIMS_PER_BATCH),
    })),
  );
  const started = await mapLimit(batches, settings.claimConcurrency, async ({ receiver, batch }) => {
    if (stopped()) return false;
    const manager = managerOf(deps, receiver);
    try {
      if (!manager) throw new Error(`no channel manager for receiver ${receiver}`);
      await claimBatch(manager, batch);
    } catch (err) {
      if (batch.length === 1 || !manager) {
        for (const c of batch) await recordFailure(c, err);
        return true;
      }
      // Logged: the fallback below hides why the batch failed (one bad channel, or the chain node).
      deps.log?.warn('batch claim failed; its channels are claimed one by one', {
        receiver,
        channels: batch.length,
        reason: errorText(err).slice(0, 300),
      });
      // Which channel fails the batch is not known: each is claimed on its own, after the chain
      // says which of them the failed batch claimed all the same (never claimed twice). Only this
      // batch's channels are synced: another batch's claim may be landing meanwhile.
      await syncFromChain(deps, batch);
      for (const c of batch) {
        const fresh = await deps.store.get(c.channelId);
        if (!fresh || BigInt(fresh.chargedCumulativeAmount) <= BigInt(fresh.totalClaimed)) continue;
        try {
          await claimBatch(manager, [fresh]);
        } catch (e) {
          await recordFailure(c, e);
        }
      }
    }
    return true;
  });
  const left = batches.filter((_, i) => !started[i]).flatMap((b) => b.batch);
  const resumeFrom = left.find((c) => c.withdrawRequestedAt === 0)?.channelId.toLowerCase() ?? left[0]?.channelId.toLowerCase();
  return { claims, failures, deferred: claimable.length - due.length + left.length, stamped, ...(resumeFrom ? { resumeFrom } : {}) };
};

/** Step 4: each receiver's claimed funds paid out; one receiver's failure does not stop another's. */
const settleReceivers = async (deps: BatchSettlementDeps): Promise<BatchSettlementReport['settlements']> => {
  const receivers = new Map<string, Address>([[deps.receiver.toLowerCase(), deps.receiver]]);
  for (const c of await deps.store.list()) receivers.set(receiverOf(c).toLowerCase(), receiverOf(c));
  const out: BatchSettlementReport['settlements'] = [];
  for (const receiver of receivers.values()) {
    try {
      const totals = await deps.escrow.receiverTotals(receiver, deps.token);
      if (totals.totalClaimed <= totals.totalSettled) continue;
      const manager = managerOf(deps, receiver);
      if (!manager) throw new Error(`no channel manager for receiver ${receiver}`);
      out.push({ receiver, transaction: (await manager.settle()).transaction });
    } catch (err) {
      out.push({ receiver, error: errorText(err) });
      deps.log?.warn('batch settle failed for a receiver; the next pass tries again', { receiver, error: errorText(err) });
    }
  }
  return out;
};

/** Step 1: the store's mirror of every channel (or of these) from the escrow. */
const syncFromChain = async (deps: BatchSettlementDeps, only?: readonly StoredChannel[]): Promise<{ synced: number; recovered: number }> => {
  const channels = only ? ((await Promise.all(only.map((c) => deps.store.get(c.channelId)))).filter(Boolean) as StoredChannel[]) : await deps.store.list();
  if (!channels.length) return { synced: 0, recovered: 0 };
  const states = await deps.escrow.channels(channels.map((c) => c.channelId));
  let synced = 0;
  let recovered = 0;
  for (const c of channels) {
    const s = states.get(c.channelId.toLowerCase());
    if (!s) continue;
    const same =
      BigInt(c.balance) === s.balance &&
      BigInt(c.totalClaimed) === s.totalClaimed &&
      c.withdrawRequestedAt === s.withdrawRequestedAt &&
      c.refundNonce === s.refundNonce;
    if (same) continue;
    const ahead = s.totalClaimed > BigInt(c.totalClaimed);
    const res = await deps.store.updateChannel(c.channelId, (cur) =>
      cur
        ? {
            ...cur,
            balance: s.balance.toString(),
            totalClaimed: s.totalClaimed.toString(),
            withdrawRequestedAt: s.withdrawRequestedAt,
            refundNonce: s.refundNonce,
            onchainSyncedAt: deps.now().getTime(),
            // Claimed on chain is charged, whatever the store lost.
            chargedCumulativeAmount: max(BigInt(cur.chargedCumulativeAmount), s.totalClaimed).toString(),
          }
        : cur,
    );
    if (res.status !== 'updated') continue;
    synced++;
    if (ahead) {
      recovered++;
      deps.log?.warn('batch channel: claimed on chain beyond the store (an interrupted claim), taken from the chain', {
        channelId: c.channelId,
        store: c.totalClaimed,
        chain: s.totalClaimed.toString(),
      });
    }
  }
  return { synced, recovered };
};

/** Step 3: idle channels with unspent escrow, fenced and refunded one by one. */
const refundIdle = async (deps: BatchSettlementDeps): Promise<{ refunds: RefundResult[]; failures: number }> => {
  const nowMs = deps.now().getTime();
  const idleMs = (deps.idleRefundSeconds ?? DEFAULT_IDLE_REFUND_S) * 1000;
  const candidates = (await deps.store.list()).filter(
    (c) =>
      BigInt(c.balance) > BigInt(c.chargedCumulativeAmount) &&
      c.withdrawRequestedAt === 0 &&
      !isPendingLive(c, nowMs) &&
      !isClosing(c, nowMs) &&
      nowMs - c.lastRequestTimestamp >= idleMs,
  );
  const refunds: RefundResult[] = [];
  let failures = 0;
  for (const c of candidates) {
    let fenced = false;
    await deps.store.updateChannel(c.channelId, (cur) => {
      fenced = false;
      // Only if nobody used it since it was listed: otherwise it is not idle any more.
      if (!cur || isPendingLive(cur, nowMs) || isClosing(cur, nowMs) || cur.lastRequestTimestamp !== c.lastRequestTimestamp) return cur;
      fenced = true;
      return { ...cur, closingUntil: nowMs + REFUND_FENCE_MS };
    });
    if (!fenced) continue;
    try {
      const manager = managerOf(deps, receiverOf(c));
      if (!manager) throw new Error(`no channel manager for receiver ${receiverOf(c)}`);
      refunds.push(...(await manager.refund([c.channelId])));
    } catch (err) {
      failures++;
      deps.log?.warn('batch channel refund failed; the channel stays open', {
        channelId: c.channelId,
        error: err instanceof Error ? err.message : String(err),
      });
      await deps.store.updateChannel(c.channelId, (cur) => (cur ? { ...cur, closingUntil: undefined } : cur));
    }
  }
  return { refunds, failures };
};

type ScanState = NonNullable<PassState['scan']>;

/**
 * Step 5: each open sale stamped with the first claim that reached its cumulative amount, a page of
 * open sales at a time (from where a stopped pass left the scan). Each channel's claim events and
 * escrow state are read once per pass, for the channels of the pages read.
 * @returns how many were stamped, the scan's state (complete: every page read, in this pass or across passes)
 */
const stampSales = async (
  deps: BatchSettlementDeps,
  fromBlock: bigint,
  resume: ScanState | undefined,
  stopped: () => boolean,
): Promise<{ stamped: number; scan: ScanState; complete: boolean }> => {
  const settings = settingsOf(deps);
  const toBlock = await deps.escrow.blockNumber();
  // A scan resumed across passes moves the cursor only to the block its first page was read at.
  const scan: ScanState = resume ?? { toBlock: toBlock.toString(), unfound: 0, sales: 0, atomic: '0' };
  const events = new Map<string, ClaimEvent[]>();
  const states = new Map<string, EscrowChannel | undefined>();
  let stamped = 0;
  do {
    if (stopped()) return { stamped, scan, complete: false };
    const page = await deps.store.openSalesPage(scan.after, settings.pageSize);
    const unread = [...new Set(page.sales.map((o) => o.channelId))].filter((id) => !events.has(id));
    for (const id of unread) events.set(id, []);
    if (unread.length) for (const e of await deps.escrow.claimEvents(unread, fromBlock, toBlock)) events.get(e.channelId)?.push(e);
    const byTransaction = new Map<string, OpenSale[]>();
    const left: OpenSale[] = [];
    for (const o of page.sales) {
      const claim = events.get(o.channelId)?.find((e) => e.totalClaimed >= o.cumulative);
      if (claim) byTransaction.set(claim.transaction, [...(byTransaction.get(claim.transaction) ?? []), o]);
      else left.push(o);
    }
    await mapLimit([...byTransaction], settings.closeConcurrency, ([transaction, sales]) => deps.store.closeSales(sales, transaction));
    stamped += page.sales.length - left.length;
    // A sale the chain has claimed but whose claim is not in the range read would be lost if the cursor moved past it.
    const unknown = [...new Set(left.map((o) => o.channelId))].filter((id) => !states.has(id));
    if (unknown.length) {
      const read = await deps.escrow.channels(unknown);
      for (const id of unknown) states.set(id, read.get(id));
    }
    let atomic = BigInt(scan.atomic);
    let oldest = scan.oldestMs;
    for (const o of left) {
      if ((states.get(o.channelId)?.totalClaimed ?? 0n) >= o.cumulative) scan.unfound++;
      atomic += BigInt(o.amount);
      const at = Date.parse(o.sale.sk.split('#')[0]!);
      if (Number.isFinite(at) && (oldest === undefined || at < oldest)) oldest = at;
    }
    scan.sales += left.length;
    scan.atomic = atomic.toString();
    if (oldest !== undefined) scan.oldestMs = oldest;
    if (page.next === undefined) delete scan.after;
    else scan.after = page.next;
  } while (scan.after !== undefined);
  return { stamped, scan, complete: true };
};

const parseState = (raw: string | undefined): PassState => (raw ? (JSON.parse(raw) as PassState) : {});

/**
 * One settlement pass. A channel's failed claim or a receiver's failed settle is recorded and the
 * rest goes on; a failure of the store or the chain reader throws, and the next pass resumes from
 * what is on chain and in the store. A pass told to stop (deps.shouldStop) finishes what it started,
 * pays out what is claimed, skips refunds and the stamp scan, and saves where it stopped for the next pass.
 */
const runBatchSettlement = async (deps: BatchSettlementDeps): Promise<BatchSettlementReport> => {
  let stop = false;
  const stopped = () => {
    stop ||= deps.shouldStop?.() ?? false;
    return stop;
  };
  const state = parseState(await deps.store.passState());
  // The cursor exists before anything is claimed, so a pass that dies after a claim is found by the next.
  let cursor = await deps.store.jobCursor();
  if (cursor === undefined) {
    cursor = await deps.escrow.blockNumber();
    await deps.store.setJobCursor(cursor);
  }
  const { synced, recovered } = await syncFromChain(deps);
  const claimed = await claimAll(deps, state.claimFrom, stopped);
  const { claims } = claimed;
  const { refunds, failures } = stopped() ? { refunds: [], failures: 0 } : await refundIdle(deps);
  // Payouts even in a stopped pass: one transaction per receiver, inside the margin the pass stops at.
  const settlements = await settleReceivers(deps);
  const current = settlements.find((x) => isAddressEqual(x.receiver, deps.receiver) && x.transaction);
  const settle: SettleResult | undefined = current?.transaction ? { transaction: current.transaction as SettleResult['transaction'] } : undefined;
  const stamp = stopped() ? { stamped: 0, scan: state.scan, complete: false } : await stampSales(deps, cursor, state.scan, stopped);
  if (stamp.complete && stamp.scan!.unfound === 0) {
    cursor = BigInt(stamp.scan!.toBlock);
    await deps.store.setJobCursor(cursor);
  } else if (stamp.complete) {
    deps.log?.warn('batch sales claimed on chain without a claim event since the cursor; the cursor stays', {
      unfound: stamp.scan!.unfound,
      cursor: cursor.toString(),
    });
  }
  const next: PassState = {
    ...(claimed.resumeFrom ? { claimFrom: claimed.resumeFrom } : {}),
    ...(!stamp.complete && stamp.scan ? { scan: stamp.scan } : {}),
  };
  await deps.store.setPassState(Object.keys(next).length ? JSON.stringify(next) : undefined);
  const backlog: ScanBacklog | undefined = stamp.complete
    ? { sales: stamp.scan!.sales, atomic: BigInt(stamp.scan!.atomic), ...(stamp.scan!.oldestMs !== undefined ? { oldestMs: stamp.scan!.oldestMs } : {}) }
    : undefined;
  const report = {
    synced,
    recovered,
    claims,
    claimFailures: claimed.failures,
    claimsDeferred: claimed.deferred,
    refunds,
    refundFailures: failures,
    ...(settle ? { settle } : {}),
    settlements,
    stamped: claimed.stamped + stamp.stamped,
    open: stamp.scan?.sales ?? 0,
    cursor,
    stopped: stop,
    ...(backlog ? { backlog } : {}),
  };
  deps.log?.info('batch settlement pass', {
    synced,
    recovered,
    claimTransactions: claims.length,
    vouchersClaimed: claims.reduce((n, c) => n + c.vouchers, 0),
    claimFailures: claimed.failures.length,
    claimsDeferred: claimed.deferred,
    refunds: refunds.length,
    refundFailures: failures,
    settlements,
    stamped: report.stamped,
    open: report.open,
    stopped: stop,
    ...(stop ? { resume: next } : {}),
  });
  return report;
};

/** The channel manager over our store: claims, settles and refunds go through the facilitator (receiver authorizer). */
const createChannelManager = (store: BatchChannelStore, facilitator: FacilitatorClient, config: Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO'>) => {
  const receiver = getAddress(config.X402_PAY_TO);
  // The scheme only carries the storage here (no key: the facilitator signs as the channels' receiver authorizer).
  const scheme = new BatchSettlementEvmScheme(receiver, { storage: store });
  return new BatchSettlementChannelManager({ scheme, facilitator, receiver, token: usdcFor(config.X402_NETWORK).address, network: config.X402_NETWORK });
};

/**
 * The job's dependencies from the service configuration (the Lambda entry's composition).
 * @param escrow injectable for tests; default reads X402_RPC_URL or the network's public RPC
 */
const batchSettlementDeps = (p: {
  config: Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO' | 'X402_RPC_URL' | 'CREDITS_TABLE'>;
  doc: DynamoDBDocumentClient;
  facilitator: FacilitatorClient;
  now: () => Date;
  log?: JobLog;
  escrow?: EscrowReader;
  settings?: SettlePassSettings;
  shouldStop?: () => boolean;
}): BatchSettlementDeps => {
  const store = new DynamoChannelStore(p.doc, p.config.CREDITS_TABLE);
  return {
    store,
    manager: createChannelManager(store, p.facilitator, p.config),
    managerFor: (receiver) => createChannelManager(store, p.facilitator, { X402_NETWORK: p.config.X402_NETWORK, X402_PAY_TO: receiver }),
    escrow: p.escrow ?? viemEscrowReader(p.config.X402_RPC_URL ?? DEFAULT_RPC_URLS[p.config.X402_NETWORK]),
    receiver: getAddress(p.config.X402_PAY_TO),
    token: usdcFor(p.config.X402_NETWORK).address,
    now: p.now,
    ...(p.log ? { log: p.log } : {}),
    ...(p.settings ? { settings: p.settings } : {}),
    ...(p.shouldStop ? { shouldStop: p.shouldStop } : {}),
  };
};

export { runBatchSettlement, batchSettlementDeps, createChannelManager };
export type { BatchSettlementDeps, BatchSettlementReport, ScanBacklog };
