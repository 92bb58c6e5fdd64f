/**
 * Issue 37, "done when": an agent with a Pro key creates a watch on /v1/inventory/eia; a simulated
 * WPSR release is ingested with `npm run ingest -- eia-petroleum --file`; the agent's receiver gets
 * one signed delivery that verifies with the `standardwebhooks` package, charged once (3 credits,
 * the route's price); a GET with the delivered ETag is a 304 and is not charged.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '../../infra/local/stack';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { createDocumentClient } from '../../shared/store/client';
import { simulatedWpsrRelease } from '../helpers/simulated-release';
import { getJson } from '../helpers/stack';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver';

let stack: LocalStack;
let receiver: Receiver;
let ledger: DynamoCreditLedger;

beforeAll(async () => {
  const id = randomUUID().slice(0, 8);
  stack = await startLocalStack({
    env: { OBSERVATIONS_TABLE: `test-obs-${id}`, CREDITS_TABLE: `test-credits-${id}`, X402_ENFORCE: '1' },
    watches: { pollMs: 100 },
    // As npm start runs it: the store on its own thread.
    storeThread: true,
  });
  receiver = await startReceiver();
  ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

/** `npm run ingest` against the stack's store, as an operator runs it beside `npm start`. */
const ingestFile = (path: string) =>
  new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/ingest-cli.ts', 'eia-petroleum', '--file', path], {
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: stack.storeEndpoint,
        OBSERVATIONS_TABLE: stack.config.OBSERVATIONS_TABLE,
        CREDITS_TABLE: stack.config.CREDITS_TABLE,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
    });
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    child.on('close', (code) => resolve({ code, out }));
  });

describe('a watch on /v1/inventory/eia and a simulated WPSR release', () => {
  it('delivers one signed answer, charged once; the delivered ETag then gets a free 304', async () => {
    const key = generateKey();
    await ledger.put(newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }));
    const auth = { authorization: `Bearer ${key}` };

    const created = await getJson(stack.url, '/v1/watches', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ path: '/v1/inventory/eia', url: receiver.url }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ path: '/v1/inventory/eia', state: 'active', credits_per_delivery: 3, deliveries: 0 });
    const secret: string = created.body.secret;

    const release = simulatedWpsrRelease(1234);
    const ingested = await ingestFile(release.path);
    expect(ingested.code, ingested.out).toBe(0);

    const [delivery] = await receiver.waitFor(1, 60_000);
    // The signature verifies with the Standard Webhooks library (it also checks the timestamp's age).
    const payload = new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>) as Record<string, any>;
    expect(delivery!.headers['webhook-id']).toMatch(/^msg_/);
    expect(payload).toMatchObject({ type: 'watch.release', watch_id: created.body.id, path: '/v1/inventory/eia', credits_charged: 3 });
    expect(payload.release).toMatchObject({ source: 'eia-petroleum' });
    // The answer the GET gives: the synthetic week's level is in it.
    expect(JSON.stringify(payload.data)).toContain(`"as_of":"${release.asOf}"`);
    expect(JSON.stringify(payload.data)).toContain(`"value":${release.value}`);
    // A tampered body does not verify.
    expect(() => new Webhook(secret).verify(delivery!.body.replace(String(release.value), '1'), delivery!.headers as Record<string, string>)).toThrow();

    await stack.watches!.idle();
    const record = (await ledger.get(hashKey(key)))!;
    expect(record.creditsLeft).toBe(3000 - 3);
    const usage = await ledger.usage(hashKey(key), new Date().toISOString().slice(0, 7));
    expect(usage.filter((u) => !u.refundedAt)).toHaveLength(1);

    const again = await fetch(`${stack.url}/v1/inventory/eia`, { headers: { ...auth, 'if-none-match': payload.etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await ledger.get(hashKey(key)))!.creditsLeft).toBe(3000 - 3);

    const watch = await getJson(stack.url, `/v1/watches/${created.body.id}`, { headers: auth });
    expect(watch.body).toMatchObject({ deliveries: 1, credits_charged: 3, last_etag: payload.etag, state: 'active' });
    expect(watch.body.recent_deliveries).toMatchObject([{ state: 'delivered', attempts: 1, last_status: 200, credits_charged: 3 }]);
    // Nothing more arrives: one release, one delivery.
    await stack.watches!.fanOutNow();
    await stack.watches!.idle();
    expect(receiver.received).toHaveLength(1);
  });
});
