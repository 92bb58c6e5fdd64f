/**
 * "What did we earn on these days, per route and lane": `npm run usage -- --day YYYY-MM-DD` (or
 * `--from YYYY-MM-DD --to YYYY-MM-DD`, inclusive, UTC days) from the credit table. x402 lanes count
 * their sales (settled payments: USDC atomic units), the Pro lane its usage entries net of refunds
 * (credits; 1 credit = 0.01 USD of list price). Money stays in integers to the last line.
 */
import type { SaleRecord } from '../../shared/payment/sales';
import type { UsageEntry } from '../../shared/pro/credit-port';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

interface DayRange {
  from: string;
  to: string;
}

interface EarningsRow {
  lane: string;
  route: string;
  calls: number;
  /** USDC atomic units (x402 lanes); credits net of refunds (pro). */
  amount: bigint;
  unit: 'usdc-atomic' | 'credits';
}

/**
 * The range of the flags: --day D, or --from A --to B (both days included).
 * @throws Error saying what to give
 */
const dayRange = (o: { day?: string; from?: string; to?: string }): DayRange => {
  if (o.day !== undefined) {
    if (o.from !== undefined || o.to !== undefined) throw new Error('give --day, or --from and --to, not both');
    if (!DAY.test(o.day) || Number.isNaN(Date.parse(o.day))) throw new Error(`--day must be YYYY-MM-DD, got "${o.day}"`);
    return { from: o.day, to: o.day };
  }
  if (o.from === undefined || o.to === undefined) throw new Error('give --day YYYY-MM-DD, or --from YYYY-MM-DD --to YYYY-MM-DD');
  for (const [k, v] of [
    ['--from', o.from],
    ['--to', o.to],
  ] as const) {
    if (!DAY.test(v) || Number.isNaN(Date.parse(v))) throw new Error(`${k} must be YYYY-MM-DD, got "${v}"`);
  }
  if (o.from > o.to) throw new Error(`--from ${o.from} is after --to ${o.to}`);
  return { from: o.from, to: o.to };
};

/** The months (YYYY-MM) a range touches: the sales and usage are stored by month. */
const monthsOf = (r: DayRange): string[] => {
  const out: string[] = [];
  let [y, m] = r.from.slice(0, 7).split('-').map(Number) as [number, number];
  const [ty, tm] = r.to.slice(0, 7).split('-').map(Number) as [number, number];
  while (y < ty || (y === ty && m <= tm)) {
    out.push(`${y}-${String(m).padStart(2, '0')}`);
    if (m === 12) {
      y += 1;
      m = 1;
    } else m += 1;
  }
  return out;
};

const inRange = (at: string, r: DayRange): boolean => at.slice(0, 10) >= r.from && at.slice(0, 10) <= r.to;

/** Earnings of a range per lane and route, lanes then routes in order. */
const earnings = (sales: readonly SaleRecord[], usage: readonly UsageEntry[], r: DayRange): EarningsRow[] => {
  const rows = new Map<string, EarningsRow>();
  const add = (lane: string, route: string, amount: bigint, unit: EarningsRow['unit'], calls: number) => {
    const k = `${lane}\u0000${route}`;
    const row = rows.get(k) ?? { lane, route, calls: 0, amount: 0n, unit };
    row.calls += calls;
    row.amount += amount;
    rows.set(k, row);
  };
  for (const s of sales) if (inRange(s.settledAt, r)) add(s.lane, s.route, BigInt(s.amount), 'usdc-atomic', 1);
  // A refunded call earned nothing: it counts neither as a call nor in the credits.
  for (const u of usage) if (inRange(u.at, r) && !u.refundedAt) add('pro', u.route, BigInt(u.credits), 'credits', 1);
  return [...rows.values()].sort((a, b) => a.lane.localeCompare(b.lane) || a.route.localeCompare(b.route));
};

const usdc = (atomic: bigint): string => `${atomic / 1_000_000n}.${String(atomic % 1_000_000n).padStart(6, '0')}`;
const listUsd = (credits: bigint): string => `${credits / 100n}.${String(credits % 100n).padStart(2, '0')}`;

/** The report's lines: one per lane and route, then a total per lane. */
const earningsLines = (rows: readonly EarningsRow[], r: DayRange, csv = false): string[] => {
  const span = r.from === r.to ? r.from : `${r.from}..${r.to}`;
  const amountText = (x: EarningsRow) =>
    x.unit === 'usdc-atomic' ? `${x.amount} USDC atomic = ${usdc(x.amount)} USDC` : `${x.amount} credits = ${listUsd(x.amount)} USD list`;
  if (csv) {
    return ['from,to,lane,route,calls,amount,unit', ...rows.map((x) => [r.from, r.to, x.lane, JSON.stringify(x.route), x.calls, x.amount, x.unit].join(','))];
  }
  const lines = rows.map((x) => `${span}  ${x.lane.padEnd(10)}  ${x.route}: ${x.calls} calls, ${amountText(x)}`);
  const lanes = [...new Set(rows.map((x) => x.lane))];
  for (const lane of lanes) {
    const of = rows.filter((x) => x.lane === lane);
    const total = { lane, route: '', calls: of.reduce((n, x) => n + x.calls, 0), amount: of.reduce((n, x) => n + x.amount, 0n), unit: of[0]!.unit };
    lines.push(`${span}  ${lane.padEnd(10)}  total: ${total.calls} calls, ${amountText(total)}`);
  }
  if (!rows.length) lines.push(`${span}  no paid calls`);
  return lines;
};

export { dayRange, monthsOf, earnings, earningsLines };
export type { DayRange, EarningsRow };
