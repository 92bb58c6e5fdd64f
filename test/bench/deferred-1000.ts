/**
 * Issue 38's "done when": the official exact clients pay 1,000 deferred calls through `npm start` on
 * 2 s blocks, every one settles on chain, and chain, store and finance agree to the atomic unit.
 * `npm run bench` runs it (test/bench/targets.ts); alone: `npx tsx test/bench/deferred-1000.ts`.
 *
 *   the runtime   `npm start` itself (infra/local/start.ts in a child process: store, chain with a block
 *                 every 2 s, facilitator, server, the deferred settle worker on its 1 s timer), on free
 *                 ports and a temporary data folder
 *   the buyers    BUYERS fresh keys funded by a plain USDC transfer; three in four pay with @x402/fetch
 *                 (v2), one in four with the v1 `x402-fetch` (@x402/axios is not installed), each buyer
 *                 sequential, all together paced to RATE calls a second (open loop: a slow answer does
 *                 not slow the arrivals of the others), over three deferred routes of two prices
 *   the checks    every call 200 with a PAYMENT-RESPONSE; every deferred claim SETTLED (none lost);
 *                 USDC the pay-to address received (balance delta, and the Transfer logs to it) = the
 *                 buyers' balances' drop = the store's sales = `npm run usage -- --from --to` (finance,
 *                 run as operators run it) = what the clients were charged by price, in count and in
 *                 atomic units
 *
 * Rows: the calls and how many were deferred / settled first (with why, from the per-payer caps);
 * client p50/p95 of each; answer to on-chain settlement p50/p95 (claim deferred_at -> settled_at);
 * the totals. With --json the last line is the rows.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { x402Client } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, createWalletClient, erc20Abi, http, parseAbiItem, publicActions, type Address, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { baseSepolia } from 'viem/chains';
import { wrapFetchWithPayment as wrapFetchWithPaymentV1 } from 'x402-fetch';
import { USDC_BY_NETWORK } from '../../shared/payment/assets';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { PRICES_USD as PRICES, usdToAtomic } from '../../shared/routes/pricing';
import { freePort } from '../helpers/ports';

const JSON_OUT = process.argv.includes('--json');
const CALLS = Number(process.env.BENCH_DEFERRED_CALLS ?? 1_000);
const BUYERS = Number(process.env.BENCH_DEFERRED_BUYERS ?? 20);
/**
 * Calls a second, all buyers together. npm start spends about 175 ms of CPU a call (verify, claim,
 * deferral, answer, and the settlement's facilitator and chain work, all in one process): at 5/s on
 * the shared 2-core machine under load 20 it fell behind until authorizations expired (measured).
 * Since the facilitator's stall was fixed, 4/s held too (400 calls at load 5-7: 0 lost, answer to
 * chain p95 3.8-4.4 s, max 7 s), but close to the 5 s target; 2/s keeps a margin on a busy machine.
 */
const RATE = Number(process.env.BENCH_DEFERRED_RATE ?? 2);
const BLOCK_TIME_S = 2;
/** The local worker's pass interval (infra/local/schedules.ts SETTLE_DEFERRED_EVERY_S). */
const SETTLE_INTERVAL_S = 1;
/** USDC each buyer starts with: 2 USDC, a hundred of the dearest calls here. */
const FUND = 2_000_000n;
const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
const USDC = USDC_BY_NETWORK['eip155:84532'].address;
/** The deferred routes paid, each with its price in atomic units (shared/routes/pricing.ts). */
const ROUTES = [
  { path: '/v1/price/CL', atomic: BigInt(usdToAtomic(PRICES.PRICE)) },
  { path: '/v1/history/CL?limit=3', atomic: BigInt(usdToAtomic(PRICES.HISTORY)) },
  { path: '/v1/fx/EURUSD', atomic: BigInt(usdToAtomic(PRICES.FX)) },
] as const;

const say = (line: string) => console.log(line);
const quantile = (xs: readonly number[], q: number): number => {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const today = () => new Date().toISOString().slice(0, 10);

// ---- npm start, as an operator runs it ---------------------------------------------------------
const ports = { http: await freePort(), store: await freePort(), chain: await freePort(), facilitator: await freePort() };
const dataDir = mkdtempSync(join(tmpdir(), 'bench-deferred-1000-'));
const runtimeEnv = {
  ...process.env,
  PORT: String(ports.http),
  DYNAMODB_PORT: String(ports.store),
  LOCAL_DATA_DIR: dataDir,
  X402_ENFORCE: '1',
  X402_LOCAL_CHAIN: '1',
  X402_LOCAL_BLOCK_TIME: String(BLOCK_TIME_S),
  X402_LOCAL_CHAIN_PORT: String(ports.chain),
  X402_LOCAL_FACILITATOR_PORT: String(ports.facilitator),
  POWERTOOLS_LOG_LEVEL: process.env.BENCH_RUNTIME_LOG_LEVEL ?? 'ERROR',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};
// `npm start` is `tsx infra/local/start.ts`: the same, with this node, and its pid the runtime's own (its CPU time is read below).
const runtime = spawn(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], { env: runtimeEnv, stdio: ['ignore', 'pipe', 'pipe'] });
/** CPU seconds the runtime used so far (Linux /proc; NaN elsewhere). */
const runtimeCpuS = (): number => {
  try {
    const f = readFileSync(`/proc/${runtime.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
};
/** The worker's pass lines and anything the runtime says went wrong, kept for the report. */
const runtimeLines: string[] = [];
let runtimeOut = '';
const onRuntime = (d: Buffer) => {
  runtimeOut += String(d);
  const lines = runtimeOut.split('\n');
  runtimeOut = lines.pop()!;
  const at = new Date().toISOString().slice(11, 23);
  runtimeLines.push(...lines.map((l) => (l.startsWith('settle-deferred') ? `${l} @${at}` : l)));
  if (runtimeLines.length > 20_000) runtimeLines.splice(0, runtimeLines.length - 20_000);
};
runtime.stdout!.on('data', onRuntime);
runtime.stderr!.on('data', onRuntime);
const base = `http://127.0.0.1:${ports.http}`;
const rpcUrl = `http://127.0.0.1:${ports.chain}`;

const stopRuntime = async () => {
  if (runtime.exitCode !== null) return;
  const exited = new Promise((r) => runtime.once('exit', r));
  runtime.kill('SIGTERM');
  await Promise.race([exited, sleep(30_000)]);
  if (runtime.exitCode === null) runtime.kill('SIGKILL');
};

try {
  const startDeadline = Date.now() + 600_000;
  while (!runtimeLines.some((l) => l.includes('commodity data service listening on'))) {
    if (runtime.exitCode !== null) throw new Error(`npm start exited with ${runtime.exitCode}: ${runtimeLines.slice(-10).join('\n')}`);
    if (Date.now() > startDeadline) throw new Error('npm start did not listen within 10 minutes');
    await sleep(200);
  }
  const chain = { ...baseSepolia, rpcUrls: { default: { http: [rpcUrl] } } };
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 100 });
  const balanceOf = (who: Address) => publicClient.readContract({ address: USDC, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const payTo = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 1 }).address;

  // ---- buyers: fresh keys, funded by one transfer each from a development account ---------------
  const funder = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 9 });
  const funderWallet = createWalletClient({ account: funder, chain, transport: http(rpcUrl) });
  const buyers: PrivateKeyAccount[] = Array.from({ length: BUYERS }, () => privateKeyToAccount(generatePrivateKey()));
  // Nonces handed out here: ganache on a block time does not count pooled transactions as pending.
  const firstNonce = await publicClient.getTransactionCount({ address: funder.address, blockTag: 'pending' });
  const funding: Hex[] = await Promise.all(
    buyers.map((b, i) =>
      funderWallet.writeContract({ address: USDC, abi: erc20Abi, functionName: 'transfer', args: [b.address, FUND], nonce: firstNonce + i, gas: 100_000n }),
    ),
  );
  for (const hash of funding) {
    const r = await publicClient.waitForTransactionReceipt({ hash, timeout: 120_000 });
    if (r.status !== 'success') throw new Error(`funding transfer ${hash} reverted`);
  }
  const startBlock = await publicClient.getBlockNumber();
  const payToBefore = await balanceOf(payTo);
  const buyersBefore = await Promise.all(buyers.map((b) => balanceOf(b.address)));
  const fromDay = today();

  // ---- the calls -------------------------------------------------------------------------------
  type Call = { buyer: number; client: 'v2' | 'v1'; path: string; atomic: bigint; status: number; ms: number; deferred: boolean; id: string; error?: string };
  const payers = buyers.map((account, i) => {
    if (i % 4 === 3) {
      const wallet = createWalletClient({ account, chain: baseSepolia, transport: http(rpcUrl) }).extend(publicActions);
      const pay = wrapFetchWithPaymentV1(fetch, wallet as never);
      return { client: 'v1' as const, pay: (url: string) => pay(url, { headers: { 'X402-Version': '1' } }), header: 'x-payment-response' };
    }
    const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));
    return { client: 'v2' as const, pay: (url: string) => pay(url), header: 'payment-response' };
  });
  const one = async (buyer: number, n: number): Promise<Call> => {
    const route = ROUTES[n % ROUTES.length]!;
    const payer = payers[buyer]!;
    const call: Call = { buyer, client: payer.client, path: route.path, atomic: route.atomic, status: 0, ms: 0, deferred: false, id: '' };
    const t0 = process.hrtime.bigint();
    try {
      const res = await payer.pay(`${base}${route.path}`);
      await res.arrayBuffer();
      call.ms = Number(process.hrtime.bigint() - t0) / 1e6;
      call.status = res.status;
      const header = res.headers.get(payer.header);
      if (!header) throw new Error(`no ${payer.header}`);
      const s = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as { success: boolean; errorReason?: string; extra?: { status?: string } };
      call.deferred = s.success === false && s.errorReason === 'settlement_pending';
      if (!call.deferred && !s.success) throw new Error(`neither settled nor pending: ${header}`);
      call.id = call.deferred ? s.extra!.status!.split('/').pop()! : '';
    } catch (err) {
      call.ms ||= Number(process.hrtime.bigint() - t0) / 1e6;
      call.error = err instanceof Error ? err.message : String(err);
    }
    return call;
  };
  say(
    `deferred exact, ${CALLS} calls through npm start: a block every ${BLOCK_TIME_S} s, ${BUYERS} buyers (${payers.filter((p) => p.client === 'v1').length} on x402-fetch v1), paced to ${RATE} calls/s; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const t0 = Date.now();
  const cpu0 = runtimeCpuS();
  const calls: Call[] = [];
  // Call k is due at t0 + k / RATE and goes to buyer k mod BUYERS; a buyer pays one call at a time.
  await Promise.all(
    buyers.map(async (_, b) => {
      for (let k = b; k < CALLS; k += BUYERS) {
        const due = t0 + (k * 1000) / RATE;
        if (due > Date.now()) await sleep(due - Date.now());
        calls.push(await one(b, Math.floor(k / BUYERS)));
      }
    }),
  );
  const callsS = (Date.now() - t0) / 1000;
  const failed = calls.filter((c) => c.status !== 200 || c.error);
  if (failed.length)
    say(
      `failed calls: ${failed.length}, e.g. ${failed
        .slice(0, 3)
        .map((c) => `${c.path} ${c.status} ${c.error ?? ''}`)
        .join('; ')}`,
    );
  const paid = calls.filter((c) => c.status === 200 && !c.error);
  const deferred = paid.filter((c) => c.deferred);
  const first = paid.filter((c) => !c.deferred);

  // ---- every deferred claim settles ------------------------------------------------------------
  const doc = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: `http://127.0.0.1:${ports.store}`, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
  const claimOf = async (id: string) => {
    const [payer, nonce] = id.split('-') as [string, string];
    const r = await doc.send(new GetCommand({ TableName: 'credits', Key: { pk: `X402#${payer}`, sk: `NONCE#${nonce}` }, ConsistentRead: true }));
    return r.Item;
  };
  const lags: number[] = [];
  const lost: string[] = [];
  let open = deferred.map((c) => c.id);
  const settleDeadline = Date.now() + 600_000;
  while (open.length) {
    const still: string[] = [];
    for (let i = 0; i < open.length; i += 25) {
      const items = await Promise.all(open.slice(i, i + 25).map(claimOf));
      items.forEach((item, j) => {
        const id = open[i + j]!;
        if (item?.state === 'SETTLED') lags.push(Date.parse(String(item.settled_at)) - Date.parse(String(item.deferred_at)));
        else if (item?.state === 'DEFERRED_LOSS') lost.push(`${id} (${item.reason})`);
        else still.push(id);
      });
    }
    open = still;
    if (!open.length) break;
    if (Date.now() > settleDeadline) throw new Error(`${open.length} deferred claims not settled within 10 minutes`);
    await sleep(1_000);
  }
  const settledAllS = (Date.now() - t0) / 1000;
  const runtimeCpu = runtimeCpuS() - cpu0;

  // ---- chain, store, finance -------------------------------------------------------------------
  const charged = paid.reduce((n, c) => n + c.atomic, 0n);
  const payToDelta = (await balanceOf(payTo)) - payToBefore;
  const buyersAfter = await Promise.all(buyers.map((b) => balanceOf(b.address)));
  const buyersDrop = buyersBefore.reduce((n, v, i) => n + v - buyersAfter[i]!, 0n);
  const transfers = await publicClient.getLogs({
    address: USDC,
    event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
    args: { to: payTo },
    fromBlock: startBlock + 1n,
    toBlock: 'latest',
  });
  const fromBuyers = new Set(buyers.map((b) => b.address.toLowerCase()));
  const ours = transfers.filter((t) => fromBuyers.has(String(t.args.from).toLowerCase()));
  const logged = ours.reduce((n, t) => n + (t.args.value ?? 0n), 0n);
  const months = [...new Set([fromDay.slice(0, 7), today().slice(0, 7)])];
  const sales = (await Promise.all(months.map((m) => new DynamoReconcileLedger(doc, 'credits').salesOfMonth(m))))
    .flat()
    .filter((s) => fromBuyers.has(s.payer.toLowerCase()));
  const booked = sales.reduce((n, s) => n + BigInt(s.amount), 0n);
  // Finance: `npm run usage -- --from D --to D --csv`, the operator's command, against the running store.
  const usage = spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/keys-cli.ts', 'usage', '--from', fromDay, '--to', today(), '--csv'], {
    env: runtimeEnv,
    encoding: 'utf8',
  });
  if (usage.status !== 0) throw new Error(`npm run usage failed: ${usage.stderr}`);
  const financeRows = usage.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','))
    .filter((f) => f[2] === 'x402-exact');
  const finance = { calls: financeRows.reduce((n, f) => n + Number(f[4]), 0), atomic: financeRows.reduce((n, f) => n + BigInt(f[5]!), 0n) };

  const agree =
    payToDelta === charged &&
    buyersDrop === charged &&
    logged === charged &&
    booked === charged &&
    finance.atomic === charged &&
    ours.length === paid.length &&
    sales.length === paid.length &&
    finance.calls === paid.length;
  const ms = (c: readonly Call[], q: number) =>
    quantile(
      c.map((x) => x.ms),
      q,
    ).toFixed(0);
  const lagTarget = 2 * BLOCK_TIME_S + SETTLE_INTERVAL_S;
  const passes = runtimeLines.filter((l) => l.startsWith('settle-deferred'));
  const rows = [
    {
      what: `x402 exact deferred through npm start: ${CALLS} calls by the official clients (@x402/fetch, x402-fetch v1), ${BUYERS} buyers at ${RATE}/s, ${BLOCK_TIME_S} s blocks`,
      value: `${paid.length} paid (${deferred.length} deferred, ${first.length} settled first), ${failed.length} failed, ${lost.length} lost; all settled ${settledAllS.toFixed(0)} s after the first call (calls took ${callsS.toFixed(0)} s)`,
      target: 'every call paid and settled, none lost',
      ok: paid.length === CALLS && failed.length === 0 && lost.length === 0 && open.length === 0,
    },
    {
      what: `x402 exact deferred (${CALLS} calls): deferred settlements lost (authorization expired or refused, booked DEFERRED_LOSS)`,
      value: `${lost.length}${lost.length ? `: ${lost.slice(0, 3).join('; ')}` : ''}`,
      target: '0',
      ok: lost.length === 0 && lags.length === deferred.length,
    },
    {
      what: `x402 exact deferred (${CALLS} calls): paid call p50 / p95, deferred (settled-first calls)`,
      value: `${ms(deferred, 0.5)} / ${ms(deferred, 0.95)} ms (${first.length ? `${ms(first, 0.5)} / ${ms(first, 0.95)} ms` : 'none'})`,
      target: 'p50 < 150 ms',
      ok:
        quantile(
          deferred.map((c) => c.ms),
          0.5,
        ) < 150,
    },
    {
      what: `x402 exact deferred (${CALLS} calls): answer to on-chain settlement p50 / p95`,
      value: `${(quantile(lags, 0.5) / 1000).toFixed(2)} / ${(quantile(lags, 0.95) / 1000).toFixed(2)} s (max ${(Math.max(...lags) / 1000).toFixed(2)} s, ${lags.length} claims)`,
      target: `p95 < ${lagTarget} s (2 blocks + ${SETTLE_INTERVAL_S} s)`,
      ok: quantile(lags, 0.95) < lagTarget * 1000,
    },
    {
      what: `x402 exact deferred (${CALLS} calls): chain = store = finance, USDC atomic units`,
      value: `charged ${charged} (${paid.length} calls); pay-to +${payToDelta}; buyers -${buyersDrop}; Transfer logs ${logged} (${ours.length}); sales ${booked} (${sales.length}); npm run usage ${finance.atomic} (${finance.calls})`,
      target: 'all equal, to the unit and the call',
      ok: agree,
    },
  ];
  say(
    `npm start used ${runtimeCpu.toFixed(1)} CPU seconds from the first call until all settled (${settledAllS.toFixed(0)} s): ${((runtimeCpu / paid.length) * 1000).toFixed(0)} ms a call`,
  );
  say(`settle worker lines: ${passes.length}; last: ${passes.at(-1) ?? 'none'}`);
  if (process.env.BENCH_DEFERRED_VERBOSE) for (const l of runtimeLines) say(`  | ${l}`);
  for (const l of runtimeLines.filter((x) => /failed|error|lost/i.test(x) && !x.startsWith('settle-deferred')).slice(0, 5)) say(`runtime: ${l.slice(0, 300)}`);
  for (const r of rows) say(`${r.ok ? 'met    ' : 'NOT met'}  ${r.what}: ${r.value}   target ${r.target}`);
  say(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  doc.destroy();
  if (JSON_OUT) console.log(JSON.stringify(rows));
} finally {
  await stopRuntime();
  rmSync(dataDir, { recursive: true, force: true });
}
