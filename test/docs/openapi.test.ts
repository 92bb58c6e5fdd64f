/**
 * /openapi.json as served by the local runtime: both linters report nothing (Redocly's
 * recommended rules and Spectral's `oas` ruleset), and every route of the table is in it with
 * its price, its security and its 200 schema, which accepts a real body of the route.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { operationIdOf } from '../../shared/docs/openapi';
import { usdToAtomic } from '../../shared/routes/pricing';
import { isChargeable, ROUTES } from '../../shared/routes/table';
import { getJson, startTestStack } from '../helpers/stack';

const run = promisify(execFile);
const bin = (name: string) => join(process.cwd(), 'node_modules', '.bin', name);

describe('/openapi.json', () => {
  let stack: LocalStack;
  let doc: any;
  let file: string;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined });
    doc = (await getJson(stack.url, '/openapi.json')).body;
    file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
  });
  afterAll(() => stack?.close());

  it('Redocly (recommended rules) reports no error and no warning', async () => {
    const { stdout } = await run(bin('redocly'), ['lint', file, '--format', 'json'], { maxBuffer: 1 << 24 }).catch((e) => e);
    const report = JSON.parse(stdout);
    expect(report.totals, JSON.stringify(report.problems?.slice(0, 5))).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('Spectral (oas ruleset) reports no finding at any severity', async () => {
    const { stdout } = await run(bin('spectral'), ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint'], {
      maxBuffer: 1 << 24,
    }).catch((e) => e);
    const findings = JSON.parse(stdout.slice(stdout.indexOf('['), stdout.lastIndexOf(']') + 1));
    expect(findings.map((f: any) => `${f.code}: ${f.message} at ${f.path.join('.')}`)).toEqual([]);
  }, 60_000);

  it('names the server relative to where it was served when no public URL is configured (no Host echo)', () => {
    expect(doc.servers).toEqual([{ url: '/' }]);
  });

  it('has every route of the table with its price, security and 200 schema', () => {
    for (const r of ROUTES) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op, r.id).toBeDefined();
      expect(op.operationId).toBe(operationIdOf(r));
      expect(op.responses['200'].content[r.mimeType].schema, r.id).toBeDefined();
      // Charged under this configuration (the curve stubs are free while indicative futures are off).
      if (isChargeable(r, stack.config)) {
        expect(op['x-price-usd'], r.id).toBe(r.priceUsd);
        expect(op['x-price-atomic'], r.id).toBe(usdToAtomic(r.priceUsd!));
        // The unpaid request x402 starts with is valid (the empty requirement), then either payment header or a Pro key.
        expect(op.security).toEqual([{}, { x402: [] }, { x402v1: [] }, { proKey: [] }]);
        expect(op.responses['402'].content['application/json'].schema.oneOf).toHaveLength(3);
        // Issue 37: the conditional request of paid answers.
        expect(op.responses['304'], r.id).toBeDefined();
        expect(op.parameters.map((p: { name: string }) => p.name)).toContain('If-None-Match');
      } else {
        // Free routes of Pro keys (webhook watches) name the key's scheme; the others none.
        expect(op.security).toEqual(r.proKey ? [{ proKey: [] }] : []);
      }
    }
    expect(doc.components.securitySchemes.x402).toMatchObject({ type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE' });
    expect(doc.components.securitySchemes.x402v1).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-PAYMENT' });
    expect(doc.components.securitySchemes.proKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it("a route's 200 schema, as published, accepts the body the route serves", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const path of ['/v1/price/CL', '/v1/cot/CL', '/v1/inventory/eia', '/v1/snapshot/energy', '/v1/decision/all', '/v1/fundamentals/wasde']) {
      const route =
        ROUTES.find((r) => r.path === path) ?? ROUTES.find((r) => r.method === 'GET' && new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path))!;
      const schema = JSON.parse(
        JSON.stringify(doc.paths[route.path].get.responses['200'].content['application/json'].schema).replaceAll('"#/components', '"doc#/components'),
      );
      const validate = ajv.compile(schema);
      const body = (await getJson(stack.url, path)).body;
      expect(validate(body) ? [] : validate.errors?.slice(0, 3).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`), path).toEqual([]);
      expect(validate({ ...body, not_in_the_contract: 1 }), `${path} is strict`).toBe(false);
    }
  });
});
