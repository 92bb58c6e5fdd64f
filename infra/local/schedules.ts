/**
 * What EventBridge runs on AWS, on timers for `npm start` with the local chain: the x402 reconciler
 * (a 504 SETTLEMENT_PENDING resolves, as deployed, within a minute) and the batch-settlement pass
 * (vouchers claimed on chain, settled, idle channels refunded). The same job functions as the
 * scheduled Lambdas (functions/reconcile-payments.ts, functions/settle-batches.ts); a pass never
 * overlaps the previous one of its kind. Tests run the jobs themselves, so the test stack has none.
 */
import { batchSettlementDeps, runBatchSettlement } from '../../shared/payment/batch/settle-job';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { deferredWorkerDeps } from '../../shared/payment/exact/deferred-job';
import { deferredSettler } from '../../shared/payment/exact/deferred-worker';
import { runReconciliation } from '../../shared/payment/reconcile-job';
import type { Services } from '../../shared/services';

/** Seconds between passes: the reconciler's deployed rate; the batch pass faster than deployed (10 min) so a local run sees it. */
const RECONCILE_EVERY_S = 60;
const SETTLE_BATCHES_EVERY_S = 60;
/** The deferred settle worker: on AWS the claims' stream starts it within a second; locally a pass each second. */
const SETTLE_DEFERRED_EVERY_S = 1;
/**
 * Settlements in flight at once, across ticks: each waits for its block (2 s on Base), so about 8 a
 * second. More did not settle faster on the shared 2-core machine: 64 at once starved the local
 * chain and facilitator of CPU until authorizations expired (test/bench/deferred-1000.ts, measured).
 */
const SETTLE_DEFERRED_CONCURRENCY = 16;

/** A pass returns what it did worth a line, or null when it found nothing to do. */
const every = (seconds: number, name: string, pass: () => Promise<string | null>, log: (line: string) => void) => {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pass()
      .then((done) => done && log(`${name}: ${done}`))
      .catch((err: Error) => log(`${name} failed: ${err.message}`))
      .finally(() => {
        running = false;
      });
  }, seconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
};

/** Starts both timers (every: seconds between passes, for tests); returns what stops them. */
const startLocalSchedules = (
  services: Services,
  log: (line: string) => void,
  every_s: { reconcile: number; batches: number; deferred?: number } = {
    reconcile: RECONCILE_EVERY_S,
    batches: SETTLE_BATCHES_EVERY_S,
    deferred: SETTLE_DEFERRED_EVERY_S,
  },
): (() => void) => {
  const { config, doc, metrics } = services;
  if (!doc) throw new Error('local schedules need the embedded store');
  // The passes' own info lines are the summaries below; warnings and errors go to the service log.
  const payment = { ...services.payment, log: { ...services.payment.log, info: () => undefined } };
  const ledger = new DynamoReconcileLedger(doc, config.CREDITS_TABLE, services.now);
  const stops = [
    every(
      every_s.reconcile,
      'reconcile-payments',
      async () => {
        const r = await runReconciliation(payment, ledger, undefined, metrics);
        return r.checked
          ? `${r.checked} checked, ${r.settled.length} settled, ${r.unpaid.length} unpaid, ${r.closed.length} closed, ${r.stillPending.length} pending`
          : null;
      },
      log,
    ),
    every(
      every_s.batches,
      'settle-batches',
      async () => {
        const r = await runBatchSettlement(batchSettlementDeps({ config, doc, facilitator: payment.facilitator, now: payment.now, log: payment.log }));
        const claimed = r.claims.reduce((n, c) => n + c.vouchers, 0);
        return claimed || r.refunds.length || r.stamped || r.settle
          ? `${claimed} vouchers claimed, ${r.refunds.length} channels refunded, ${r.stamped} sales stamped, ${r.open} open${r.settle ? ', settled' : ''}`
          : null;
      },
      log,
    ),
  ];
  const worker = deferredWorkerDeps(payment, undefined, metrics);
  // Outcomes since the last line: the settlements outlive the tick that started them.
  const tally = { settled: 0, lost: 0, retry: 0, skipped: 0, failed: 0 };
  const settler = worker && deferredSettler(worker, SETTLE_DEFERRED_CONCURRENCY, (outcome) => void tally[outcome]++);
  if (settler)
    stops.push(
      every(
        every_s.deferred ?? SETTLE_DEFERRED_EVERY_S,
        'settle-deferred',
        async () => {
          await settler.tick();
          const done = { ...tally };
          for (const k of Object.keys(tally) as Array<keyof typeof tally>) tally[k] = 0;
          return done.settled || done.lost || done.retry || done.failed
            ? `${done.settled} settled, ${done.lost} lost (booked), ${done.retry} to retry, ${done.failed} failed`
            : null;
        },
        log,
      ),
    );
  return () => {
    for (const stop of stops) stop();
  };
};

export { startLocalSchedules };
