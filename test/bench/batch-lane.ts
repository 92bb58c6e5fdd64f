/**
 * Bench groundwork for issue 23 (`npx tsx test/bench/batch-lane.ts`; the lead wires it into `npm run
 * bench` once the lane is in the payment core). One run on the local chain with Base's 2 s blocks
 * (X402_LOCAL_BLOCK_TIME=2), same machine, official clients over HTTP:
 *
 *   exact lane   `npm start`'s stack (X402_ENFORCE=1, local chain and facilitator) paid by @x402/fetch
 *                with the exact EVM scheme: every call is one settlement the buyer waits for
 *   batch lane   the batch lane behind test/payment/batch/harness.ts (the stack's store and chain),
 *                paid by @x402/fetch with @x402/evm's batch-settlement client: one deposit, then
 *                vouchers; the settlement job then claims and settles
 *
 * Calls are interleaved (one exact call, then 25 batch calls, per round) so drift hits both alike.
 * Both clients make the 402 probe @x402/fetch always makes; a batch "repeat call" is one whose
 * PAYMENT-RESPONSE carries no transaction (a voucher, after the channel exists).
 *
 * Printed: the repeat paid call's p50 per lane and their ratio; on-chain transactions per 1,000
 * paid calls per lane (batch: deposits seen in PAYMENT-RESPONSE + the job's claim and settle
 * transactions, over exactly 1,000 paid calls; exact: the distinct settlement transactions of its
 * calls, scaled to 1,000 and labelled so); the median of the lane's own work per voucher
 * (authorize + commit, store writes on the embedded store included). Targets are printed beside the
 * numbers; nothing here fails a build.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';

process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { x402Client } = await import('@x402/core/client');
const { decodePaymentResponseHeader, wrapFetchWithPayment } = await import('@x402/fetch');
const { toClientEvmSigner } = await import('@x402/evm');
const { BatchSettlementEvmScheme } = await import('@x402/evm/batch-settlement/client');
const { registerExactEvmScheme } = await import('@x402/evm/exact/client');
const { startLocalStack } = await import('../../infra/local/stack');
const { createDocumentClient } = await import('../../shared/store/client');
const { DynamoChannelStore } = await import('../../shared/payment/batch/dynamo-channel-store');
const { salesOfMonth } = await import('../../shared/payment/sales');
const { viemEscrowReader } = await import('../../shared/payment/batch/escrow-reader');
const { createBatchLane, batchLaneConfig } = await import('../../shared/payment/batch/lane');
const { createChannelManager, runBatchSettlement } = await import('../../shared/payment/batch/settle-job');
const { countingFacilitator, handVoucher, officialBuyer } = await import('../payment/batch/helpers');
const { voucherSignedByAuthorizer, BatchPayloadSchema } = await import('../../shared/payment/batch/voucher');
const { startBatchHarness } = await import('../payment/batch/harness');

const BLOCK_TIME_S = Number(process.env.X402_LOCAL_BLOCK_TIME ?? 2);
const BATCH_CALLS = 1_000;
const BATCH_PER_ROUND = 25;
const ROUNDS = BATCH_CALLS / BATCH_PER_ROUND;
const PATH = '/v1/price/CL';

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;

const stack = await startLocalStack({
  env: {
    OBSERVATIONS_TABLE: `bench-obs-${randomUUID().slice(0, 8)}`,
    CREDITS_TABLE: `bench-credits-${randomUUID().slice(0, 8)}`,
    X402_ENFORCE: '1',
    X402_LOCAL_CHAIN: '1',
    X402_LOCAL_BLOCK_TIME: String(BLOCK_TIME_S),
  },
});
const net = stack.payments!;
const doc = createDocumentClient(stack.config);
const store = new DynamoChannelStore(doc, stack.config.CREDITS_TABLE);
const facilitator = countingFacilitator(net.facilitator.url);
// The default deposit hint (5 USD, the official client's default maximum deposit): 500 calls of 0.01 per deposit.
const config = batchLaneConfig(stack.config, net.facilitator.receiverAuthorizer.address);
const lane = createBatchLane({ config, store, facilitator, now: () => new Date() });
const harness = await startBatchHarness({ lane, network: net.chain.network, payTo: net.payTo });

const exactBuyer = net.chain.accounts[5]!;
const batchBuyer = net.chain.accounts[6]!;
const payExact = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: exactBuyer }));
const payBatch = wrapFetchWithPayment(
  fetch,
  new x402Client().register(net.chain.network, new BatchSettlementEvmScheme(toClientEvmSigner(batchBuyer, net.chain.publicClient as never))),
);

/** One paid call: wall time (probe, payment, answer) and the settlement transaction it reported. */
const call = async (pay: typeof fetch, url: string): Promise<{ ms: number; transaction: string }> => {
  const t0 = process.hrtime.bigint();
  const res = await pay(url);
  await res.arrayBuffer();
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return { ms: elapsed, transaction: decodePaymentResponseHeader(res.headers.get('payment-response')!).transaction };
};

try {
  console.log(`batch lane bench: local chain with a block every ${BLOCK_TIME_S} s, ${BATCH_CALLS} batch calls, ${ROUNDS} exact calls, interleaved`);
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (CPU-bound figures scale with it)`,
  );
  const exactMs: number[] = [];
  const exactTxs = new Set<string>();
  const batchRepeatMs: number[] = [];
  const batchDeposits = new Set<string>();
  // Warm-up of the exact path (not counted): cold caches in the service and the facilitator.
  await call(payExact, `${stack.url}${PATH}`);

  let batchCalls = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const e = await call(payExact, `${stack.url}${PATH}`);
    exactMs.push(e.ms);
    exactTxs.add(e.transaction);
    for (let i = 0; i < BATCH_PER_ROUND; i++) {
      const b = await call(payBatch, `${harness.url}${PATH}`);
      batchCalls++;
      if (b.transaction) batchDeposits.add(b.transaction);
      else batchRepeatMs.push(b.ms);
    }
  }

  const pass = await runBatchSettlement({
    store,
    manager: createChannelManager(store, facilitator as never, stack.config),
    escrow: viemEscrowReader(net.chain.publicClient),
    receiver: net.payTo,
    token: net.chain.asset,
    now: () => new Date(),
  });
  const batchTxs = batchDeposits.size + pass.claims.length + (pass.settle ? 1 : 0);
  const exactPer1000 = (exactTxs.size / exactMs.length) * 1000;

  const batchP50 = quantile(batchRepeatMs, 0.5);
  const exactP50 = quantile(exactMs, 0.5);
  const workP50 = quantile(harness.laneWorkMs, 0.5);
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  console.log('\nrepeat paid call (official @x402/fetch, probe included)      p50          p95');
  console.log(`  batch lane (${batchRepeatMs.length} voucher calls)`.padEnd(58), ms(batchP50).padStart(11), ms(quantile(batchRepeatMs, 0.95)).padStart(12));
  console.log(`  exact lane (${exactMs.length} calls)`.padEnd(58), ms(exactP50).padStart(11), ms(quantile(exactMs, 0.95)).padStart(12));
  console.log(
    `  exact / batch p50: ${(exactP50 / batchP50).toFixed(1)}x   target: batch < 100 ms (${verdict(batchP50 < 100)}), >= 20x faster (${verdict(exactP50 / batchP50 >= 20)})`,
  );
  console.log('\non-chain transactions per 1,000 paid calls');
  console.log(
    `  batch: ${batchTxs} over ${batchCalls} calls (${batchDeposits.size} deposit, ${pass.claims.length} claim, ${pass.settle ? 1 : 0} settle)   target <= 5 (${verdict(batchTxs <= 5 && batchCalls === BATCH_CALLS)})`,
  );
  console.log(`  exact: ${exactPer1000.toFixed(0)} (measured ${exactTxs.size} settlements over ${exactMs.length} calls, scaled to 1,000)`);
  console.log("\nthe batch lane's own work per voucher (authorize + commit, embedded store writes included)");
  console.log(
    `  median ${ms(workP50)}, p95 ${ms(quantile(harness.laneWorkMs, 0.95))} over ${harness.laneWorkMs.length} vouchers; facilitator calls by the lane: ${facilitator.calls.verify} verify, ${facilitator.calls.settle} settle   target <= 10 ms (${verdict(workP50 <= 10)})`,
  );
  // The CPU part of a voucher check, timed alone on the same machine: the EIP-712 recovery of the payer authorizer.
  const sample = officialBuyer(net, batchBuyer);
  const option = lane.offer({ priceUsd: '0.01', summary: 'bench', mimeType: 'application/json' }, PATH);
  const recoveryMs: number[] = [];
  for (let i = 1; i <= 200; i++) {
    const p = BatchPayloadSchema.parse((await handVoucher(net, sample, option, BigInt(i) * 10_000n)).payload);
    const t0 = process.hrtime.bigint();
    voucherSignedByAuthorizer(p.channelConfig, p.voucher, net.chain.chainId);
    recoveryMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(`  of which the EIP-712 signature recovery alone (CPU, 200 vouchers timed apart): median ${ms(quantile(recoveryMs, 0.5))}`);
  // The floor of that work on this machine and store: the same recovery and the same store round trips, bare
  // (GetItem, a conditional PutItem, a TransactWriteItems of three Puts), with nothing of the lane around them.
  const floorMs: number[] = [];
  const { GetCommand, PutCommand, TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const table = stack.config.CREDITS_TABLE;
  for (let i = 1; i <= 200; i++) {
    const p = BatchPayloadSchema.parse((await handVoucher(net, sample, option, BigInt(i) * 10_000n)).payload);
    const key = { pk: 'BENCH#floor', sk: String(i) };
    const t0 = process.hrtime.bigint();
    voucherSignedByAuthorizer(p.channelConfig, p.voucher, net.chain.chainId);
    await doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }));
    await doc.send(new PutCommand({ TableName: table, Item: { ...key, v: 1 }, ConditionExpression: 'attribute_not_exists(pk)' }));
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { ...key, v: 2 } } },
          { Put: { TableName: table, Item: { pk: 'BENCH#floor-sale', sk: String(i) } } },
          { Put: { TableName: table, Item: { pk: 'BENCH#floor-open', sk: String(i) } } },
        ],
      }),
    );
    floorMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const floor = quantile(floorMs, 0.5);
  console.log(
    `  floor (that recovery + GetItem + conditional PutItem + TransactWriteItems of 3 Puts, bare): median ${ms(floor)}; lane / floor ${(workP50 / floor).toFixed(2)}x`,
  );
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `\nsales booked: ${(await salesOfMonth(doc, stack.config.CREDITS_TABLE, new Date().toISOString().slice(0, 7))).length}; open after the pass: ${pass.open}`,
  );
} finally {
  await harness.close();
  doc.destroy();
  await stack.close();
}
