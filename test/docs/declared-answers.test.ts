/**
 * Every answer the service gives is one that /openapi.json declares, and its body validates against
 * the schema declared for that status and media type, with Ajv's JSON Schema 2020-12 validator in
 * strict mode (an unknown keyword or a non-standard format fails the compile). Walked over HTTP on the
 * local stack with enforcement on: each route's 200 (paid routes with a Pro key), its 304, and the
 * refusals (402 unpaid, 402 QUOTA_EXCEEDED, 402 INVALID_PAYMENT, 401, 400, 404, 405, 202, 503).
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { mapLimit } from '../../shared/concurrency/map-limit';
import { examplePath } from '../../shared/docs/text';
import { DynamoCreditLedger, newKeyRecord } from '../../shared/pro/credit-ledger';
import { generateKey, hashKey, keyHint } from '../../shared/pro/keys';
import { ROUTES, type RouteDef } from '../../shared/routes/table';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStack } from '../helpers/stack';

const PAY_TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

interface Answer {
  route: RouteDef;
  request: string;
  status: number;
  contentType: string;
  body: string;
}

/** Requests that exercise one route's answers besides its plain 200. */
const refusalsOf = (r: RouteDef, keys: { rich: string; empty: string }): Array<{ path: string; init?: RequestInit; label: string }> => {
  const path = examplePath(r);
  const out: Array<{ path: string; init?: RequestInit; label: string }> = [];
  if (r.priceUsd !== null) {
    out.push({ path, label: 'unpaid' });
    out.push({ path, init: { headers: { authorization: `Bearer ${keys.empty}` } }, label: 'no credits left' });
    out.push({ path, init: { headers: { authorization: `Bearer ${generateKey()}` } }, label: 'unknown key' });
    out.push({ path, init: { headers: { authorization: 'Bearer not-a-key' } }, label: 'malformed key' });
    out.push({ path, init: { headers: { 'payment-signature': Buffer.from('{"x402Version":2}').toString('base64') } }, label: 'invalid payment' });
  }
  if (r.path.includes('{')) out.push({ path: r.path.replace(/\{\w+\}/g, 'NOPE_9'), init: authOf(r, keys), label: 'unknown path word' });
  if (r.path === '/v1/history/{code}') out.push({ path: '/v1/history/CL?limit=0', init: authOf(r, keys), label: 'bad query' });
  if (r.path === '/v1/prices') out.push({ path: '/v1/prices?codes=', init: authOf(r, keys), label: 'bad query' });
  return out;
};
const authOf = (r: RouteDef, keys: { rich: string }): RequestInit | undefined =>
  r.priceUsd !== null || r.proKey ? { headers: { authorization: `Bearer ${keys.rich}` } } : undefined;

describe('every answer validates against what /openapi.json declares (Ajv 2020, strict)', () => {
  let stack: LocalStack;
  let doc: any;
  const keys = { rich: generateKey(), empty: generateKey() };
  const answers: Answer[] = [];
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (pointer: string, schema: unknown): ValidateFunction => {
    let v = compiled.get(pointer);
    if (!v) {
      v = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"doc#/$defs/')));
      compiled.set(pointer, v);
    }
    return v;
  };

  const call = async (route: RouteDef, path: string, init?: RequestInit) => {
    const res = await fetch(`${stack.url}${path}`, { redirect: 'manual', ...init });
    answers.push({
      route,
      request: `${init?.method ?? route.method} ${path}`,
      status: res.status,
      contentType: (res.headers.get('content-type') ?? '').split(';')[0]!.trim(),
      body: await res.text(),
    });
    return res;
  };

  beforeAll(async () => {
    stack = await startTestStack({
      X402_ENFORCE: '1',
      X402_PAY_TO: PAY_TO,
      PRO_RATE_LIMIT_PER_SECOND: '10000',
      OPERATOR_CONTACT: 'operator@example.com',
    });
    const ledger = new DynamoCreditLedger(createDocumentClient(stack.config), stack.config.CREDITS_TABLE);
    for (const [key, credits] of [
      [keys.rich, 1_000_000],
      [keys.empty, 0],
    ] as const) {
      await ledger.put({ ...newKeyRecord({ hash: hashKey(key), hint: keyHint(key), plan: 'monthly', now: new Date() }), creditsLeft: credits });
    }
    doc = await (await fetch(`${stack.url}/openapi.json`)).json();
    // The shared schemas, where the document's references point (components.schemas).
    ajv.addSchema(JSON.parse(JSON.stringify({ $id: 'doc', $defs: doc.components.schemas }).replaceAll('"#/components/schemas/', '"doc#/$defs/')));

    await mapLimit(
      ROUTES.filter((x) => x.method === 'GET'),
      6,
      async (r) => {
        const path = r.id === 'GET /pro/success' ? '/pro/success?session_id=cs_test_unknown' : examplePath(r);
        const res = await call(r, path, authOf(r, keys));
        const etag = res.headers.get('etag');
        if (etag) await call(r, path, { headers: { 'if-none-match': etag } });
        for (const refusal of refusalsOf(r, keys)) await call(r, refusal.path, refusal.init);
      },
    );
    const byId = (id: string) => ROUTES.find((r) => r.id === id)!;
    await call(byId('GET /pro/success'), '/pro/success?session_id=x');
    await call(byId('GET /api/mcp'), '/api/mcp', { headers: { accept: 'text/event-stream' } });
    await call(byId('DELETE /api/mcp'), '/api/mcp', { method: 'DELETE' });
    await call(byId('POST /pro/checkout'), '/pro/checkout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"plan":"monthly"}' });
    await call(byId('POST /pro/checkout'), '/pro/checkout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"plan":"weekly"}' });
    await call(byId('POST /pro/webhook'), '/pro/webhook', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  }, 180_000);
  afterAll(() => stack?.close());

  // The crack, crush and basis spreads need a day on which every leg has a value, which today's replayed
  // samples lack (404 NO_DATA; their 200 is validated with a fixed clock in test/mcp/tool-list.test.ts);
  // a payment's status needs an exact payment (its 200 is checked in test/payment/deferred.test.ts), a
  // watch's a watch of the key (test/watches/watches.test.ts): refused here, as documented.
  const NO_200_HERE = new Set(['GET /v1/spreads/crack', 'GET /v1/spreads/crush', 'GET /v1/spreads/basis', 'GET /v1/payments/{id}', 'GET /v1/watches/{id}']);

  it('walked every GET route, its 200 and its refusals', () => {
    const statuses = new Set(answers.map((a) => a.status));
    // 202 (a checkout Stripe has not confirmed) needs Stripe configured: test/pro/checkout.test.ts.
    for (const s of [200, 304, 400, 401, 402, 404, 405]) expect(statuses, `some answer is ${s}`).toContain(s);
    for (const r of ROUTES.filter((x) => x.method === 'GET'))
      expect(
        answers.some((a) => a.route === r && (a.status === 200 || (NO_200_HERE.has(r.id) && a.status >= 400))),
        r.id,
      ).toBe(true);
  });

  it('declares the status of every answer, and each body validates against the schema declared for it', () => {
    const problems: string[] = [];
    for (const a of answers) {
      const op = doc.paths[a.route.path]?.[a.route.method.toLowerCase()];
      const declared = op?.responses?.[String(a.status)];
      if (!declared) {
        problems.push(`${a.request} -> ${a.status}: not declared (${Object.keys(op?.responses ?? {}).join(', ')})`);
        continue;
      }
      if (!declared.content) {
        if (a.body !== '') problems.push(`${a.request} -> ${a.status}: declared without a body, answered ${a.body.length} bytes`);
        continue;
      }
      const media = declared.content[a.contentType];
      if (!media) {
        problems.push(`${a.request} -> ${a.status}: ${a.contentType} not declared (${Object.keys(declared.content).join(', ')})`);
        continue;
      }
      let validate: ValidateFunction;
      try {
        validate = validatorOf(`${a.route.id} ${a.status} ${a.contentType}`, media.schema);
      } catch (err) {
        problems.push(`${a.request} -> ${a.status}: the declared schema does not compile: ${(err as Error).message}`);
        continue;
      }
      const body = a.contentType === 'application/json' ? JSON.parse(a.body) : a.body;
      if (!validate(body)) {
        const first = validate.errors!.slice(0, 3).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
        problems.push(`${a.request} -> ${a.status}: ${first.join('; ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("names the operator's contact from configuration", () => {
    expect(doc.info.contact).toEqual({ name: 'Operator', email: 'operator@example.com' });
  });

  it('the check has teeth: a drifted body fails its declared schema', () => {
    const price = answers.find((a) => a.route.id === 'GET /v1/price/{code}' && a.status === 200)!;
    const validate = validatorOf(
      'GET /v1/price/{code} 200 application/json',
      doc.paths['/v1/price/{code}'].get.responses['200'].content['application/json'].schema,
    );
    expect(validate(JSON.parse(price.body))).toBe(true);
    expect(validate({ ...JSON.parse(price.body), extra: 1 })).toBe(false);
    const card = answers.find((a) => a.route.id === 'GET /.well-known/agent-card.json' && a.status === 200)!;
    const cardSchema = doc.paths['/.well-known/agent-card.json'].get.responses['200'].content['application/json'].schema;
    expect(validatorOf('card', cardSchema)({ ...JSON.parse(card.body), url: 42 })).toBe(false);
  });
});
