/**
 * `npm run bench`: the latency the x402 lane adds to a paid call, measured in one run.
 *
 * One local stack (embedded store, replayed samples) with the local chain and facilitator
 * (X402_LOCAL_CHAIN=1) in demo mode, so the same route can be called three ways. Each call is one
 * invocation of the price family's Lambda handler, in-process, exactly what a Lambda would run:
 *
 *   unpaid          GET /v1/price/CL without payment (demo mode serves it)
 *   verify only     the same with a signed payment, handler answers `charge: false`: decode, local
 *                   checks (EIP-712 recovery), nonce claim in the store, facilitator /verify over
 *                   loopback HTTP (with on-chain simulation), release
 *   verify+settle   a charged call: all of the above plus facilitator /settle (a ganache
 *                   transaction and its receipt) and the ledger writes
 *
 * The three kinds are interleaved round-robin so that drift affects them alike. Payments are
 * signed before the timer starts (signing is the client's cost, not the service's).
 * Ratios are medians relative to the unpaid median.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

// Before any service module loads: the logger reads its level once, at import.
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { startLocalStack } = await import('../../infra/local/stack');
const { priceHandlers } = await import('../../shared/families/price/handlers');
const { createFamilyHandler } = await import('../../shared/http/family-handler');
const { PRICE_ROUTES } = await import('../../shared/routes/table');
const { b64, nowS, signAuthorization, v1Payload, acceptedFor } = await import('../payment/helpers');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60);
const WARMUP = 8;
const ROUTE_ID = 'GET /v1/price/{code}' as const;

const event = (headers: Record<string, string>): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: ROUTE_ID,
    rawPath: '/v1/price/CL',
    rawQueryString: '',
    headers: { host: '127.0.0.1:8787', ...headers },
    pathParameters: { code: 'CL' },
    requestContext: { requestId: randomUUID(), domainName: '127.0.0.1', http: { method: 'GET', path: '/v1/price/CL' } },
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;
const context = { awsRequestId: 'bench' } as Context;

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p95: quantile(s, 0.95), mean: xs.reduce((a, b) => a + b, 0) / xs.length };
};

type Timer = () => Promise<void>;

/** Runs every prepared call of a round in turn, timing only the call itself. */
const runRounds = async (kinds: Record<string, () => Promise<Timer>>, rounds: number): Promise<Record<string, number[]>> => {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  for (let round = 0; round < WARMUP + rounds; round++) {
    for (const [name, prepare] of Object.entries(kinds)) {
      const call = await prepare();
      const t0 = process.hrtime.bigint();
      await call();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (round >= WARMUP) times[name]!.push(ms);
    }
  }
  return times;
};

const printTable = (title: string, times: Record<string, number[]>, baseline: string): void => {
  const base = summary(times[baseline]!);
  console.log(`\n${title}`);
  console.log('kind                    median ms   p95 ms   mean ms   added (median)   ratio to unpaid');
  for (const [name, xs] of Object.entries(times)) {
    const s = summary(xs);
    console.log(
      `${name.padEnd(23)} ${s.median.toFixed(2).padStart(9)} ${s.p95.toFixed(2).padStart(8)} ${s.mean.toFixed(2).padStart(9)} ${(s.median - base.median).toFixed(2).padStart(12)} ms ${(s.median / base.median).toFixed(1).padStart(14)}x`,
    );
  }
};

const main = async (): Promise<void> => {
  const id = randomUUID().slice(0, 8);
  const stack = await startLocalStack({
    // Settle first (X402_DEFER_MAX_USD 0): this table is the block wait of a settled call; deferred calls have
    // their own bench (test/bench/deferred-exact.ts).
    env: { OBSERVATIONS_TABLE: `bench-obs-${id}`, CREDITS_TABLE: `bench-credits-${id}`, X402_ENFORCE: '0', X402_LOCAL_CHAIN: '1', X402_DEFER_MAX_USD: '0' },
  });
  try {
    const net = stack.payments!;
    const buyer = net.chain.accounts[2]!;
    const services = () => stack.services;
    const charged = createFamilyHandler(PRICE_ROUTES, priceHandlers, services);
    const uncharged = createFamilyHandler(
      PRICE_ROUTES,
      { ...priceHandlers, [ROUTE_ID]: async (req) => ({ ...(await priceHandlers[ROUTE_ID](req)), charge: false }) },
      services,
    );
    const paymentHeader = async () => b64(v1Payload(await signAuthorization(buyer, { payTo: net.payTo, validAfter: nowS() - 600n })));
    const invoke =
      (handler: typeof charged, headers: Record<string, string>, settled: boolean): Timer =>
      async () => {
        const res = await handler(event(headers), context);
        if (res.statusCode !== 200 || Boolean(res.headers?.['payment-response']) !== settled)
          throw new Error(`unexpected answer ${res.statusCode} ${res.body}`);
      };
    const overHttp =
      (headers: Record<string, string>, settled: boolean): Timer =>
      async () => {
        const res = await fetch(`${stack.url}/v1/price/CL`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200 || Boolean(res.headers.get('payment-response')) !== settled) throw new Error(`unexpected HTTP answer ${res.status}`);
      };

    const balanceBefore = await net.chain.balanceOf(buyer.address);
    const inProcess = await runRounds(
      {
        unpaid: async () => invoke(charged, {}, false),
        'verify only': async () => invoke(uncharged, { 'x-payment': await paymentHeader() }, false),
        'verify+settle': async () => invoke(charged, { 'x-payment': await paymentHeader() }, true),
      },
      ROUNDS,
    );
    const http = await runRounds(
      {
        'unpaid (HTTP)': async () => overHttp({}, false),
        'verify+settle (HTTP)': async () => overHttp({ 'x-payment': await paymentHeader() }, true),
      },
      ROUNDS,
    );

    // Where the time goes: the facilitator calls and the ledger writes on their own.
    const { facilitator, ledger } = stack.services.payment;
    const requirements = acceptedFor(net.payTo) as never;
    const v2 = async () => {
      const signed = await signAuthorization(buyer, { payTo: net.payTo });
      return { x402Version: 2, accepted: requirements, payload: signed } as never;
    };
    const parts = await runRounds(
      {
        'facilitator /verify': async () => {
          const p = await v2();
          return async () => void (await facilitator.verify(p, requirements));
        },
        'facilitator /settle': async () => {
          const p = await v2();
          return async () => {
            if (!(await facilitator.settle(p, requirements)).success) throw new Error('settle failed');
          };
        },
        'ledger claim+release': async () => {
          const nonce = `0x${randomUUID().replace(/-/g, '').padEnd(64, '0')}`;
          const key = { payer: buyer.address.toLowerCase(), nonce };
          return async () => {
            await ledger.claim({
              ...key,
              claimId: 'bench',
              route: ROUTE_ID,
              path: '/v1/price/CL',
              network: 'eip155:84532',
              asset: net.chain.asset,
              payTo: net.payTo,
              amount: '10000',
              validBefore: 0,
              claimedAt: new Date().toISOString(),
              payload: '{}',
            });
            await ledger.release(key, 'bench', 'bench');
          };
        },
      },
      Math.min(ROUNDS, 30),
    );

    const charges = BigInt(2 * (WARMUP + ROUNDS) + (WARMUP + Math.min(ROUNDS, 30)));
    const moved = balanceBefore - (await net.chain.balanceOf(buyer.address));
    if (moved !== charges * 10_000n) throw new Error(`expected ${charges * 10_000n} atomic units to move, saw ${moved}`);

    console.log(`x402 lane latency, one run: ${ROUNDS} rounds (+${WARMUP} warm-up) per kind, interleaved, GET /v1/price/CL`);
    console.log(`node ${process.version}; ganache chain 84532 in-process; local facilitator over loopback HTTP; embedded DynamoDB (dynalite)`);
    printTable('Lambda handler invoked in-process (what a Lambda runs; the unpaid read is an in-Lambda cache hit):', inProcess, 'unpaid');
    printTable('Over HTTP through the local server (what a client sees):', http, 'unpaid (HTTP)');
    const p = Object.fromEntries(Object.entries(parts).map(([k, xs]) => [k, summary(xs)]));
    console.log(
      `\nComponents (median ms): ${Object.entries(p)
        .map(([k, s]) => `${k} ${s.median.toFixed(2)}`)
        .join('; ')}`,
    );
    console.log(`\nSettled on chain during the run: ${moved} atomic units = ${charges} charged calls x 10000, as expected.`);
  } finally {
    await stack.close();
  }
};

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
