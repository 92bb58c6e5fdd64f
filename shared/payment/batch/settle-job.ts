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
import { usdcFor } from '../assets';
import { DEFAULT_RPC_URLS } from '../reconcile';
import { type BatchChannelStore, isClosing, isPendingLive, type OpenSale, type StoredChannel } from './channel-store';
import { DynamoChannelStore } from './dynamo-channel-store';
import { type ClaimEvent, type EscrowReader, viemEscrowReader } from './escrow-reader';

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
  /** Sales still waiting for a claim. */
  open: number;
  /** The block the next pass reads claim events from. */
  cursor: bigint;
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const receiverOf = (c: StoredChannel): Address => getAddress(c.channelConfig.receiver);

/** The manager of a receiver: the current pay-to's, or one for a channel opened to an earlier one. */
const managerOf = (deps: BatchSettlementDeps, receiver: Address): Manager | undefined =>
  isAddressEqual(receiver, deps.receiver) ? deps.manager : deps.managerFor?.(receiver);

/**
 * Step 2: every claimable channel claimed, by receiver and in batches; a failing batch is split so
 * that one bad channel stops only itself. The sales each claim covers are stamped with it at once.
 */
const claimAll = async (
  deps: BatchSettlementDeps,
): Promise<{ claims: ClaimResult[]; failures: BatchSettlementReport['claimFailures']; deferred: number; stamped: number }> => {
  const nowMs = deps.now().getTime();
  const listed = await deps.store.list();
  const claimable = listed.filter((c) => BigInt(c.chargedCumulativeAmount) > BigInt(c.totalClaimed));
  // A channel claimed since its failure (by a later pass, or on chain before the failure was seen) is no longer failing.
  for (const c of listed) {
    if (c.claimFailure && BigInt(c.chargedCumulativeAmount) <= BigInt(c.totalClaimed))
      await deps.store.updateChannel(c.channelId, (cur) => (cur ? { ...cur, claimFailure: undefined } : cur));
  }
  const due = claimable.filter((c) => c.withdrawRequestedAt !== 0 || !c.claimFailure || c.claimFailure.retryAt <= nowMs);
  const claims: ClaimResult[] = [];
  const failures: BatchSettlementReport['claimFailures'] = [];
  let stamped = 0;
  if (!due.length) return { claims, failures, deferred: claimable.length, stamped };
  const open = await deps.store.openSales();

  /** One claim transaction for these channels; throws what the manager threw. */
  const claimBatch = async (manager: Manager, batch: StoredChannel[]) => {
    const ids = new Set(batch.map((c) => c.channelId.toLowerCase()));
    const results = await manager.claim({
      maxClaimsPerBatch: MAX_CLAIMS_PER_BATCH,
      selectClaimChannels: (channels) => channels.filter((c) => ids.has(c.channelId.toLowerCase())),
    });
    claims.push(...results);
    // The claim covers each channel's sales from its claimed total before to the one after.
    for (const c of batch) {
      const after = await deps.store.get(c.channelId);
      const transaction = results.at(-1)?.transaction;
      if (!after || !transaction) continue;
      const covered = open.filter(
        (o) => o.channelId === c.channelId.toLowerCase() && o.cumulative > BigInt(c.totalClaimed) && o.cumulative <= BigInt(after.totalClaimed),
      );
      if (covered.length) {
        await deps.store.closeSales(covered, transaction);
        stamped += covered.length;
      }
      if (after.claimFailure) await deps.store.updateChannel(c.channelId, (cur) => (cur ? { ...cur, claimFailure: undefined } : cur));
    }
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

  const byReceiver = new Map<Address, StoredChannel[]>();
  for (const c of due) byReceiver.set(receiverOf(c), [...(byReceiver.get(receiverOf(c)) ?? []), c]);
  for (const [receiver, channels] of byReceiver) {
    const manager = managerOf(deps, receiver);
    for (let i = 0; i < channels.length; i += MAX_CLAIMS_PER_BATCH) {
      const batch = channels.slice(i, i + MAX_CLAIMS_PER_BATCH);
      try {
        if (!manager) throw new Error(`no channel manager for receiver ${receiver}`);
        await claimBatch(manager, batch);
      } catch (err) {
        if (batch.length === 1 || !manager) {
          for (const c of batch) await recordFailure(c, err);
          continue;
        }
        // Which channel fails the batch is not known: each is claimed on its own, after the chain
        // says which of them the failed batch claimed all the same (never claimed twice).
        await syncFromChain(deps);
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
    }
  }
  return { claims, failures, deferred: claimable.length - due.length, stamped };
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

/** Step 1: the store's mirror of every channel from the escrow. */
const syncFromChain = async (deps: BatchSettlementDeps): Promise<{ synced: number; recovered: number }> => {
  const channels = await deps.store.list();
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

/**
 * Step 5: each open sale stamped with the first claim that reached its cumulative amount.
 * @returns how many were stamped, how many are left, and whether any claimed sale went unfound
 */
const stampSales = async (deps: BatchSettlementDeps, fromBlock: bigint): Promise<{ stamped: number; open: number; unfound: number; toBlock: bigint }> => {
  const open = await deps.store.openSales();
  const toBlock = await deps.escrow.blockNumber();
  if (!open.length) return { stamped: 0, open: 0, unfound: 0, toBlock };
  const ids = [...new Set(open.map((o) => o.channelId))];
  const events = await deps.escrow.claimEvents(ids, fromBlock, toBlock);
  const byChannel = new Map<string, ClaimEvent[]>();
  for (const e of events) byChannel.set(e.channelId, [...(byChannel.get(e.channelId) ?? []), e]);
  const byTransaction = new Map<string, OpenSale[]>();
  const left: OpenSale[] = [];
  for (const o of open) {
    const claim = byChannel.get(o.channelId)?.find((e) => e.totalClaimed >= o.cumulative);
    if (claim) byTransaction.set(claim.transaction, [...(byTransaction.get(claim.transaction) ?? []), o]);
    else left.push(o);
  }
  for (const [transaction, sales] of byTransaction) await deps.store.closeSales(sales, transaction);
  // A sale the chain has claimed but whose claim is not in the range read would be lost if the cursor moved past it.
  const states = left.length ? await deps.escrow.channels([...new Set(left.map((o) => o.channelId))]) : new Map();
  const unfound = left.filter((o) => (states.get(o.channelId)?.totalClaimed ?? 0n) >= o.cumulative).length;
  return { stamped: open.length - left.length, open: left.length, unfound, toBlock };
};

/**
 * One settlement pass. A channel's failed claim or a receiver's failed settle is recorded and the
 * rest goes on; a failure of the store or the chain reader throws, and the next pass resumes from
 * what is on chain and in the store.
 */
const runBatchSettlement = async (deps: BatchSettlementDeps): Promise<BatchSettlementReport> => {
  // The cursor exists before anything is claimed, so a pass that dies after a claim is found by the next.
  let cursor = await deps.store.jobCursor();
  if (cursor === undefined) {
    cursor = await deps.escrow.blockNumber();
    await deps.store.setJobCursor(cursor);
  }
  const { synced, recovered } = await syncFromChain(deps);
  const claimed = await claimAll(deps);
  const { claims } = claimed;
  const { refunds, failures } = await refundIdle(deps);
  const settlements = await settleReceivers(deps);
  const current = settlements.find((x) => isAddressEqual(x.receiver, deps.receiver) && x.transaction);
  const settle: SettleResult | undefined = current?.transaction ? { transaction: current.transaction as SettleResult['transaction'] } : undefined;
  const stamp = await stampSales(deps, cursor);
  if (stamp.unfound === 0) {
    cursor = stamp.toBlock;
    await deps.store.setJobCursor(cursor);
  } else {
    deps.log?.warn('batch sales claimed on chain without a claim event since the cursor; the cursor stays', {
      unfound: stamp.unfound,
      cursor: cursor.toString(),
    });
  }
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
    open: stamp.open,
    cursor,
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
    stamped: claimed.stamped + stamp.stamped,
    open: stamp.open,
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
  };
};

export { runBatchSettlement, batchSettlementDeps, createChannelManager };
export type { BatchSettlementDeps, BatchSettlementReport };
