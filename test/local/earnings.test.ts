/**
 * `npm run usage -- --day` / `--from --to`: earnings per lane and route of UTC days, from sales and
 * Pro usage entries. Records are synthetic (prices as SPEC.md states them: a price call 0.01 USD =
 * 10,000 atomic USDC, a decision pack 0.25 USD = 250,000; a Pro call 1 credit).
 */
import { describe, expect, it } from 'vitest';
import { dayRange, earnings, earningsLines, monthsOf } from '../../infra/local/earnings';
import type { SaleRecord } from '../../shared/payment/sales';
import type { UsageEntry } from '../../shared/pro/credit-port';

const sale = (lane: SaleRecord['lane'], route: string, amount: string, settledAt: string): SaleRecord => ({
  lane,
  saleId: `${lane}-${settledAt}`,
  payer: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  amount,
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  network: 'eip155:84532',
  payTo: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  route,
  path: '/v1/x',
  transaction: '0xabc',
  settledAt,
  requestId: 'r',
});
const use = (route: string, credits: number, at: string, refundedAt?: string): UsageEntry => ({
  hash: 'h',
  callId: at,
  requestId: 'r',
  route,
  credits,
  at,
  ...(refundedAt ? { refundedAt } : {}),
});

const PRICE = 'GET /v1/price/{code}';
const DECISION = 'GET /v1/decision/{sector}';
const sales = [
  sale('x402-exact', PRICE, '10000', '2026-11-26T23:59:59.999Z'), // the day before
  sale('x402-exact', PRICE, '10000', '2026-11-27T00:00:00.000Z'),
  sale('x402-exact', PRICE, '10000', '2026-11-27T13:00:00.000Z'),
  sale('x402-batch', DECISION, '250000', '2026-11-27T23:59:59.999Z'),
  sale('x402-batch', PRICE, '10000', '2026-11-28T00:00:00.000Z'), // the day after
];
const usage = [
  use(PRICE, 1, '2026-11-27T08:00:00.000Z'),
  use(PRICE, 1, '2026-11-27T09:00:00.000Z', '2026-11-27T09:00:01.000Z'),
  use(DECISION, 25, '2026-11-27T10:00:00.000Z'),
];

describe('earnings per lane and route', () => {
  it('counts one UTC day per lane and route, refunded Pro calls left out, amounts as integers', () => {
    const r = dayRange({ day: '2026-11-27' });
    expect(earnings(sales, usage, r)).toEqual([
      { lane: 'pro', route: DECISION, calls: 1, amount: 25n, unit: 'credits' },
      { lane: 'pro', route: PRICE, calls: 1, amount: 1n, unit: 'credits' },
      { lane: 'x402-batch', route: DECISION, calls: 1, amount: 250_000n, unit: 'usdc-atomic' },
      { lane: 'x402-exact', route: PRICE, calls: 2, amount: 20_000n, unit: 'usdc-atomic' },
    ]);
    const lines = earningsLines(earnings(sales, usage, r), r);
    expect(lines).toContain(`2026-11-27  x402-exact  ${PRICE}: 2 calls, 20000 USDC atomic = 0.020000 USDC`);
    expect(lines).toContain('2026-11-27  pro         total: 2 calls, 26 credits = 0.26 USD list');
  });

  it('takes a range of days, both ends included, across months', () => {
    const r = dayRange({ from: '2026-11-26', to: '2026-12-01' });
    expect(monthsOf(r)).toEqual(['2026-11', '2026-12']);
    expect(monthsOf(dayRange({ from: '2025-12-30', to: '2026-01-02' }))).toEqual(['2025-12', '2026-01']);
    const exact = earnings(sales, [], r).filter((x) => x.lane !== 'pro');
    expect(exact.map((x) => [x.lane, x.route, x.calls, x.amount])).toEqual([
      ['x402-batch', DECISION, 1, 250_000n],
      ['x402-batch', PRICE, 1, 10_000n],
      ['x402-exact', PRICE, 3, 30_000n],
    ]);
  });

  it('refuses flags that do not name days, with what to give', () => {
    expect(() => dayRange({})).toThrow(/give --day YYYY-MM-DD, or --from YYYY-MM-DD --to YYYY-MM-DD/);
    expect(() => dayRange({ day: '27.11.2026' })).toThrow(/--day must be YYYY-MM-DD/);
    expect(() => dayRange({ from: '2026-11-28', to: '2026-11-27' })).toThrow(/is after --to/);
    expect(() => dayRange({ day: '2026-11-27', from: '2026-11-01', to: '2026-11-02' })).toThrow(/not both/);
    expect(earningsLines([], dayRange({ day: '2026-11-27' }))).toEqual(['2026-11-27  no paid calls']);
  });
});
