/**
 * Finance's report (`npm run usage`) against the store the service wrote: per-key totals equal
 * the usage entries (debits net of refunds), per-route totals add up to them, and x402 revenue is
 * the month's sales records. The CLI runs as operators run it, in its own process.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoReconcileLedger } from '../../shared/payment/ledger';
import type { SaleRecord } from '../../shared/payment/sales';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { getJson, startTestStack } from '../helpers/stack';

const run = promisify(execFile);

describe('npm run usage', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', PRO_RATE_LIMIT_PER_SECOND: '1000' });
  });
  afterAll(() => stack?.close());

  it('reports per key and per route exactly what the usage entries say, refunds netted out', async () => {
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    const key = generateKey();
    await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
    const headers = { authorization: `Bearer ${key}` };
    // The last answers 404 NO_DATA (no real corn export sales is replayed): refunded.
    for (const path of ['/v1/price/CL', '/v1/price/NG', '/v1/decision/energy', '/v1/fundamentals/export-sales?commodity=corn'])
      await getJson(stack.url, path, { headers });

    const { stdout } = await run(join(process.cwd(), 'node_modules', '.bin', 'tsx'), ['infra/local/keys-cli.ts', 'usage', '--csv'], {
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: stack.config.DYNAMODB_ENDPOINT,
        CREDITS_TABLE: stack.config.CREDITS_TABLE,
        OBSERVATIONS_TABLE: stack.config.OBSERVATIONS_TABLE,
      },
    });
    const rows = stdout
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    const mine = rows.find((r) => r[1] === hashKey(key).slice(0, 12))!;
    const month = new Date().toISOString().slice(0, 7);
    const entries = await ledger.usage(hashKey(key), month);
    const debited = entries.reduce((n, u) => n + u.credits, 0);
    const refunded = entries.filter((u) => u.refundedAt).reduce((n, u) => n + u.credits, 0);
    expect(mine.slice(4, 8).map(Number)).toEqual([entries.length, debited, refunded, debited - refunded]);
    expect([entries.length, debited - refunded]).toEqual([4, 1 + 1 + 10]);
    const routeTotal = rows.filter((r) => r[1] === 'route').reduce((n, r) => n + Number(r[7]), 0);
    expect(routeTotal).toBe(rows.filter((r) => /^[0-9a-f]{12}$/.test(r[1]!)).reduce((n, r) => n + Number(r[7]), 0));
    expect(rows.find((r) => r[1] === 'x402')).toEqual([month, 'x402', 'sales', '0', '', '', '', '', '0.000000']);
  }, 60_000);

  it('reports x402 revenue per lane and route from the sales records, summing to the total', async () => {
    const finance = new DynamoReconcileLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    const month = '2026-10';
    const sale = (lane: SaleRecord['lane'], i: number, route: string, amount: string): SaleRecord => ({
      lane,
      saleId: `${lane}:${i}`,
      payer: '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
      amount,
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      network: 'eip155:84532',
      payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      route,
      path: '/x',
      transaction: '',
      settledAt: `${month}-15T10:00:${String(i).padStart(2, '0')}.000Z`,
      requestId: `r${i}`,
    });
    const sales = [
      sale('x402-exact', 1, 'GET /v1/price/{code}', '10000'),
      sale('x402-exact', 2, 'GET /v1/price/{code}', '10000'),
      sale('x402-batch', 3, 'GET /v1/price/{code}', '10000'),
      sale('x402-batch', 4, 'GET /v1/decision/all', '250000'),
    ];
    for (const s of sales) await finance.recordSale(s);
    const { stdout } = await run(join(process.cwd(), 'node_modules', '.bin', 'tsx'), ['infra/local/keys-cli.ts', 'usage', '--csv', '--month', month], {
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: stack.config.DYNAMODB_ENDPOINT,
        CREDITS_TABLE: stack.config.CREDITS_TABLE,
        OBSERVATIONS_TABLE: stack.config.OBSERVATIONS_TABLE,
      },
    });
    const x402 = stdout
      .trim()
      .split('\n')
      .map((l) => l.split(','))
      .filter((r) => r[1] === 'x402');
    expect(x402).toEqual([
      [month, 'x402', 'x402-batch "GET /v1/decision/all"', '1', '', '', '', '250000', '0.250000'],
      [month, 'x402', 'x402-batch "GET /v1/price/{code}"', '1', '', '', '', '10000', '0.010000'],
      [month, 'x402', 'x402-exact "GET /v1/price/{code}"', '2', '', '', '', '20000', '0.020000'],
      [month, 'x402', 'sales', '4', '', '', '', '', '0.280000'],
    ]);
  }, 60_000);

  it('npm run keys: issue prints the key once; list/show never print it; rotate carries credits and revokes the old key', async () => {
    const cli = (...args: string[]) =>
      run(join(process.cwd(), 'node_modules', '.bin', 'tsx'), ['infra/local/keys-cli.ts', ...args], {
        env: {
          ...process.env,
          DYNAMODB_ENDPOINT: stack.config.DYNAMODB_ENDPOINT,
          CREDITS_TABLE: stack.config.CREDITS_TABLE,
          OBSERVATIONS_TABLE: stack.config.OBSERVATIONS_TABLE,
        },
      }).then((r) => r.stdout);
    const issued = await cli('issue', '--plan', 'yearly', '--label', 'ops');
    const key = /cds_live_[0-9A-Za-z]{38}/.exec(issued)![0];
    const id = hashKey(key).slice(0, 12);
    const listed = await cli('list');
    expect(listed).toContain(id);
    expect(listed).toContain(keyHint(key));
    expect(listed).not.toContain(key);
    expect(await cli('topup', id, '25')).toContain('3025/3000');
    const rotated = await cli('rotate', id);
    const next = /cds_live_[0-9A-Za-z]{38}/.exec(rotated)![0];
    expect(next).not.toBe(key);
    expect(rotated).toContain('3025/3000');
    expect((await getJson(stack.url, '/v1/price/CL', { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    expect((await getJson(stack.url, '/v1/price/CL', { headers: { authorization: `Bearer ${next}` } })).status).toBe(200);
    const shown = await cli('show', hashKey(next).slice(0, 12));
    expect(shown).toContain('this month: 1 calls, 1 credits used');
    expect(shown).not.toContain(next);
  }, 60_000);
});
