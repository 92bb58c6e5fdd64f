/**
 * `npm run keys -- issue|list|show|revoke|topup|rotate|usage` — Pro keys for operators.
 *
 * Against the local store by default (the running `npm start` store, else .data/); with --aws
 * against the deployed credit table named by CREDITS_TABLE (the data stack's CreditsTableName
 * output) in AWS_REGION, with the operator's AWS credentials. A key is printed once, by `issue`
 * and `rotate`; everything else shows only its id (first 12 hex of its hash) and hint.
 */
import { DynamoDeferredLedger } from '../../shared/payment/exact/deferred-store';
import { loadConfig } from '../../shared/config';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import { DynamoCreditLedger, newKeyRecord, type KeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { PLAN_IDS, type PlanId } from '../../shared/pro/plans';
import { createDocumentClient } from '../../shared/store/client';
import { parseCliArgs } from './cli-args';
import { printEarnings } from './earnings-report';
import { ensureTables } from './embedded-store';
import { connectLocalStore, StoreHeldError } from './store-connection';

const USAGE = `usage: npm run keys -- <command> [--aws]
  issue [--plan monthly|yearly] [--label TEXT] [--test]   create a key (printed once)
  list                                                   every key: id, hint, plan, status, credits
  show <id>                                              one key and its usage this month
  revoke <id>                                            the key stops working at once
  topup <id> <credits>                                   add credits to the current month
  rotate <id>                                            a new key with the same plan and credits; the old one is revoked
  usage [--month YYYY-MM] [--csv]                        finance: calls, credits debited, refunded and net per key
  usage --day YYYY-MM-DD | --from YYYY-MM-DD --to YYYY-MM-DD [--csv]   earnings per lane and route (USDC, credits)`;

const { values, positionals } = parseCliArgs(USAGE, {
  month: { type: 'string' },
  day: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  csv: { type: 'boolean', default: false },
  plan: { type: 'string', default: 'monthly' },
  label: { type: 'string' },
  test: { type: 'boolean', default: false },
  aws: { type: 'boolean', default: false },
});

const fail = (msg: string): never => {
  console.error(msg);
  process.exit(2);
};

const [command, idArg, amountArg] = positionals;
if (!command) fail(USAGE);

let close = async () => {};
let env: Record<string, string | undefined> = { OBSERVATIONS_TABLE: 'observations', CREDITS_TABLE: 'credits', ...process.env };
if (values.aws) {
  if (!process.env.CREDITS_TABLE) fail('--aws needs CREDITS_TABLE (the data stack output CreditsTableName) and AWS_REGION');
  env = { ...env, DYNAMODB_ENDPOINT: undefined };
} else {
  const local = await connectLocalStore(process.env).catch((err: unknown) => (err instanceof StoreHeldError ? fail(err.message) : Promise.reject(err)));
  close = local.close;
  env.DYNAMODB_ENDPOINT = local.endpoint;
  await ensureTables(local.endpoint, { observations: env.OBSERVATIONS_TABLE!, credits: env.CREDITS_TABLE! });
}
const config = loadConfig(env);
const ledger = new DynamoCreditLedger(createDocumentClient(config), config.CREDITS_TABLE);

const idOf = (r: KeyRecord) => r.hash.slice(0, 12);
const line = (r: KeyRecord) =>
  [
    idOf(r),
    r.hint,
    r.plan.padEnd(7),
    r.status.padEnd(7),
    `${r.creditsLeft}/${r.creditsPerPeriod}`.padEnd(11),
    `resets ${r.periodEnd}`,
    `paid until ${r.paidUntil}`,
    r.label ?? '',
  ].join('  ');

const find = async (id: string | undefined): Promise<KeyRecord> => {
  if (!id || !/^[0-9a-f]{6,64}$/.test(id)) return fail(`give the key id (first hex characters of its hash, from "list")\n${USAGE}`);
  const matches = (await ledger.list()).filter((r) => r.hash.startsWith(id));
  if (matches.length !== 1) return fail(matches.length ? `id ${id} is ambiguous; give more characters` : `no key with id ${id}`);
  return matches[0]!;
};

const issue = async (plan: PlanId, label: string | undefined, carry?: KeyRecord) => {
  const key = generateKey(values.test ? 'test' : 'live');
  const record = {
    ...newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan, now: new Date(), label }),
    ...(carry ? { creditsLeft: carry.creditsLeft, periodEnd: carry.periodEnd, periodStart: carry.periodStart, paidUntil: carry.paidUntil } : {}),
  };
  await ledger.put(record);
  return { key, record };
};

switch (command) {
  case 'issue': {
    if (!PLAN_IDS.includes(values.plan as PlanId)) fail(`--plan must be one of ${PLAN_IDS.join(', ')}`);
    const { key, record } = await issue(values.plan as PlanId, values.label);
    console.log(`key (shown once, store it now): ${key}`);
    console.log(line(record));
    break;
  }
  case 'list':
    for (const r of await ledger.list()) console.log(line(r));
    break;
  case 'show': {
    const r = await find(idArg);
    console.log(line(r));
    const usage = await ledger.usage(r.hash, new Date().toISOString().slice(0, 7));
    const used = usage.filter((u) => !u.refundedAt).reduce((n, u) => n + u.credits, 0);
    console.log(`this month: ${usage.length} calls, ${used} credits used, ${usage.filter((u) => u.refundedAt).length} refunded`);
    break;
  }
  case 'revoke':
    console.log(line((await ledger.revoke((await find(idArg)).hash))!));
    break;
  case 'topup': {
    const credits = Number(amountArg);
    if (!Number.isInteger(credits) || credits <= 0) fail('topup needs a positive whole number of credits');
    console.log(line((await ledger.topUp((await find(idArg)).hash, credits))!));
    break;
  }
  case 'rotate': {
    const old = await find(idArg);
    if (old.status !== 'active') fail(`key ${idOf(old)} is ${old.status}`);
    const { key, record } = await issue(old.plan, old.label, old);
    await ledger.markRotated(old.hash, idOf(record));
    console.log(`new key (shown once, store it now): ${key}`);
    console.log(line(record));
    break;
  }
  case 'usage': {
    if (values.day || values.from || values.to) {
      await printEarnings(values, ledger, new DynamoReconcileLedger(createDocumentClient(config), config.CREDITS_TABLE)).catch((err: Error) =>
        fail(err.message),
      );
      break;
    }
    const month = values.month ?? new Date().toISOString().slice(0, 7);
    if (!/^\d{4}-\d{2}$/.test(month)) fail('--month must be YYYY-MM');
    const rows = [];
    for (const r of await ledger.list()) {
      const usage = await ledger.usage(r.hash, month);
      const debited = usage.reduce((n, u) => n + u.credits, 0);
      const refunded = usage.filter((u) => u.refundedAt).reduce((n, u) => n + u.credits, 0);
      rows.push({ id: idOf(r), hint: r.hint, plan: r.plan, calls: usage.length, debited, refunded, net: debited - refunded });
    }
    // Credits are integers; 1 credit = 0.01 USD of list price, so net credits are list-price cents.
    const usd = (credits: number) => `${Math.floor(credits / 100)}.${String(credits % 100).padStart(2, '0')}`;
    if (values.csv) {
      console.log('month,key_id,hint,plan,calls,credits_debited,credits_refunded,credits_net,list_price_usd');
      for (const x of rows) console.log([month, x.id, x.hint, x.plan, x.calls, x.debited, x.refunded, x.net, usd(x.net)].join(','));
    } else {
      for (const x of rows)
        console.log(
          `${month}  ${x.id}  ${x.hint}  ${x.plan.padEnd(7)}  ${x.calls} calls  ${x.debited} debited  ${x.refunded} refunded  ${x.net} net (${usd(x.net)} USD list)`,
        );
      const total = rows.reduce((n, x) => n + x.net, 0);
      console.log(`total ${month}: ${rows.reduce((n, x) => n + x.calls, 0)} calls, ${total} credits net (${usd(total)} USD list)`);
    }
    // Per route (credits net of refunds) and the month's x402 sales, from the same table.
    const byRoute = new Map<string, number>();
    for (const r of await ledger.list())
      for (const u of await ledger.usage(r.hash, month)) if (!u.refundedAt) byRoute.set(u.route, (byRoute.get(u.route) ?? 0) + u.credits);
    // x402 revenue from the sales records, every lane: in total and per lane and route.
    const sales = await new DynamoReconcileLedger(createDocumentClient(config), config.CREDITS_TABLE).salesOfMonth(month);
    const usdcOf = (atomic: bigint) => `${atomic / 1_000_000n}.${String(atomic % 1_000_000n).padStart(6, '0')}`;
    const atomic = sales.reduce((n, s) => n + BigInt(s.amount), 0n);
    const byLaneRoute = new Map<string, { lane: string; route: string; count: number; atomic: bigint }>();
    for (const sale of sales) {
      const k = `${sale.lane} ${sale.route}`;
      const row = byLaneRoute.get(k) ?? { lane: sale.lane, route: sale.route, count: 0, atomic: 0n };
      row.count++;
      row.atomic += BigInt(sale.amount);
      byLaneRoute.set(k, row);
    }
    const laneRows = [...byLaneRoute.values()].sort((a, b) => `${a.lane} ${a.route}`.localeCompare(`${b.lane} ${b.route}`));
    if (values.csv) {
      for (const [route, credits] of byRoute) console.log([month, 'route', JSON.stringify(route), '', '', '', '', credits, usd(credits)].join(','));
      for (const r of laneRows) console.log([month, 'x402', `${r.lane} ${JSON.stringify(r.route)}`, r.count, '', '', '', r.atomic, usdcOf(r.atomic)].join(','));
      console.log([month, 'x402', 'sales', sales.length, '', '', '', '', usdcOf(atomic)].join(','));
    } else {
      for (const [route, credits] of [...byRoute].sort()) console.log(`${month}  route ${route}: ${credits} credits (${usd(credits)} USD list)`);
      for (const r of laneRows) console.log(`${month}  x402 ${r.lane} ${r.route}: ${r.count} sales, ${r.atomic} USDC atomic units = ${usdcOf(r.atomic)} USDC`);
      console.log(`${month}  x402: ${sales.length} sales, ${atomic} USDC atomic units = ${usdcOf(atomic)} USDC`);
    }
    // Deferred exact calls answered and never paid (the payer moved its funds): the seller's loss.
    const losses = await new DynamoDeferredLedger(createDocumentClient(config), config.CREDITS_TABLE).lossesOfMonth(month);
    const lost = losses.reduce((n, l) => n + BigInt(l.amount), 0n);
    for (const l of losses)
      console.log(
        values.csv
          ? [month, 'deferred_loss', `${l.payer} ${JSON.stringify(l.route)}`, 1, '', '', '', l.amount, usdcOf(BigInt(l.amount))].join(',')
          : `${month}  x402 deferred_loss payer ${l.payer} ${l.route}: ${l.amount} USDC atomic units = ${usdcOf(BigInt(l.amount))} USDC (${l.reason})`,
      );
    console.log(
      values.csv
        ? [month, 'deferred_loss', 'total', losses.length, '', '', '', lost, usdcOf(lost)].join(',')
        : `${month}  x402 deferred losses: ${losses.length} calls, ${lost} USDC atomic units = ${usdcOf(lost)} USDC`,
    );
    break;
  }
  default:
    fail(`unknown command ${command}\n${USAGE}`);
}
await close();
