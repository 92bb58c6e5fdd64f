/**
 * The item sizes the README's scale table and `npm run capacity` are stated from, measured: a real
 * paid call in each lane through the local runtime (X402_LOCAL_CHAIN=1: ganache, the official x402
 * facilitator logic, the official clients), then every item it left in the credit table read raw
 * and sized by DynamoDB's rules, with the copies the indexes hold. The exact lane's claim is read
 * while the facilitator settles it (the moment it is largest: it carries the payment payload).
 * The figures must equal tools/capacity/measured-item-sizes.json, which the tool reads.
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { x402Client } from '@x402/core/client';
import { toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client as FetchClient } from '@x402/fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { CREDITS_TABLE } from '../../shared/store/tables';
import { itemSize, projectedSize } from '../../tools/capacity/item-size';
import { startTestStack } from '../helpers/stack';

const MEASURED = JSON.parse(readFileSync(new URL('../../tools/capacity/measured-item-sizes.json', import.meta.url), 'utf8')) as Record<string, number>;
type Item = Record<string, AttributeValue>;

describe('item sizes of one paid call per lane, measured', () => {
  let stack: LocalStack;
  let raw: DynamoDBClient;
  let claimWhileSettling: Item | undefined;
  const scan = async (): Promise<Item[]> => (await raw.send(new ScanCommand({ TableName: stack.config.CREDITS_TABLE }))).Items ?? [];

  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1', X402_LOCAL_CHAIN: '1' });
    raw = new DynamoDBClient({
      endpoint: stack.config.DYNAMODB_ENDPOINT,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    stack.payments!.facilitator.facilitator.onBeforeSettle(async () => {
      claimWhileSettling ??= (await scan()).find((i) => i.state?.S === 'CLAIMED');
    });
  }, 180_000);
  afterAll(async () => {
    raw?.destroy();
    await stack?.close();
  });

  it('measures each item and its index copies, and they are the figures the capacity tool reads', async () => {
    const chain = stack.payments!.chain;
    // exact: the official client, a price call (0.01 USD)
    const exact = wrapFetchWithPayment(fetch, registerExactEvmScheme(new FetchClient(), { signer: chain.accounts[4]! }));
    expect((await exact(`${stack.url}/v1/price/CL`)).status).toBe(200);
    // batch-settlement: the official client with only that scheme, two calls on one channel
    const batchClient = new x402Client().register(
      chain.network,
      new BatchSettlementEvmScheme(toClientEvmSigner(chain.accounts[5]!, chain.publicClient as never), { storage: new InMemoryClientChannelStorage() }),
    );
    const batch = wrapFetchWithPayment(fetch, batchClient);
    for (let i = 0; i < 2; i++) expect((await batch(`${stack.url}/v1/price/CL`)).status).toBe(200);
    // Pro: a key as `npm run keys -- issue` writes it, one call
    const key = generateKey('test');
    await new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE).put(
      newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date(), label: 'size' }),
    );
    expect((await fetch(`${stack.url}/v1/price/CL`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    const items = await scan();
    const [watch, sales] = CREDITS_TABLE.globalIndexes!;
    const keysOf = (i: { partitionKey: { name: string }; sortKey: { name: string }; projected: readonly string[] }) => [
      'pk',
      'sk',
      i.partitionKey.name,
      i.sortKey.name,
      ...i.projected,
    ];
    const one = (what: string, pred: (i: Item) => boolean): Item => {
      const found = items.filter(pred);
      expect(found.length, `${what}: ${found.map((f) => `${f.pk?.S} ${f.sk?.S}`).join(', ')}`).toBeGreaterThanOrEqual(1);
      return found[0]!;
    };
    expect(claimWhileSettling, 'the claim was read while the facilitator settled it').toBeDefined();
    const exactSale = one('settled exact claim', (i) => i.state?.S === 'SETTLED' && i.gsi2pk !== undefined);
    const batchSale = one('batch sale', (i) => i.lane?.S === 'x402-batch' && i.sale_id !== undefined && i.pk?.S?.startsWith('X402SALE#') === true);
    const channel = one('batch channel', (i) => i.pk?.S?.startsWith('X402CHANNEL#') === true);
    const open = one('batch open entry', (i) => i.pk?.S?.startsWith('X402BATCHOPEN#') === true);
    const plan = one('Pro plan', (i) => i.sk?.S === 'PLAN');
    const usage = one('Pro usage entry', (i) => i.sk?.S?.startsWith('USAGE#') === true);
    const measured = {
      exactClaim: itemSize(claimWhileSettling!),
      exactClaimInWatchIndex: projectedSize(claimWhileSettling!, keysOf(watch!)),
      exactSale: itemSize(exactSale),
      exactSaleInSalesIndex: projectedSize(exactSale, keysOf(sales!)),
      batchChannel: itemSize(channel),
      batchSale: itemSize(batchSale),
      batchOpen: itemSize(open),
      proPlan: itemSize(plan),
      proUsage: itemSize(usage),
    };
    // The claim needs two write units (its payment payload); its copy in the watch index, one.
    expect(measured.exactClaim).toBeGreaterThan(1024);
    expect(measured.exactClaimInWatchIndex).toBeLessThanOrEqual(1024);
    // The recorded figures the capacity tool reads: a call's ids and instants vary a few bytes from run
    // to run, so each figure is the recorded one within 32 bytes and in the same started KB (write units).
    for (const [name, bytes] of Object.entries(measured)) {
      const recorded = MEASURED[name] ?? Number.NaN;
      const why = `${name}: measured now ${bytes}, recorded ${recorded}:\n${JSON.stringify(measured, null, 2)}`;
      expect(Math.abs(bytes - recorded), why).toBeLessThanOrEqual(32);
      expect(Math.ceil(bytes / 1024), why).toBe(Math.ceil(recorded / 1024));
    }
    expect(Object.keys(measured).sort()).toEqual(Object.keys(MEASURED).sort());
  }, 300_000);
});
