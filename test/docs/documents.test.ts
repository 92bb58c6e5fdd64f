/**
 * The discovery documents as served: their formats (llmstxt.org, Agent Skills, A2A agent card),
 * that every route of the table is in each with its price, and their caching validators.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { examplePath } from '../../shared/docs/text';
import { parseRouteInput } from '../../shared/routes/input';
import { usdToAtomic } from '../../shared/routes/pricing';
import { isChargeable, PAID_ROUTES, ROUTES } from '../../shared/routes/table';
import { getJson, startTestStack } from '../helpers/stack';

const text = async (url: string) => (await fetch(url)).text();

describe('discovery documents', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined });
  });
  afterAll(() => stack?.close());

  it('llms.txt follows llmstxt.org: H1, a > summary, H2 sections of [name](url): notes, Optional last', async () => {
    const lines = (await text(`${stack.url}/llms.txt`)).split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((l) => l.trim() !== '' && !l.startsWith('# '))).toMatch(/^> /);
    const sections = lines.filter((l) => l.startsWith('## '));
    expect(sections.at(-1)).toBe('## Optional');
    expect(lines.filter((l) => l.startsWith('#') && !l.startsWith('# ') && !l.startsWith('## '))).toEqual([]);
    const items = lines.filter((l) => l.startsWith('- '));
    for (const item of items) expect(item).toMatch(/^- \[[^\]]+\]\(https?:\/\/[^)]+\)(: .+)?$/);
    for (const r of PAID_ROUTES.filter((p) => isChargeable(p, stack.config)))
      expect(
        items.some((i) => i.includes(`[${r.method} ${r.path}]`) && i.includes(`${r.priceUsd} USD`)),
        r.id,
      ).toBe(true);
  });

  it('every example request the documents print is a valid request of its route (path words and required query filled in)', () => {
    for (const r of ROUTES.filter((x) => x.id !== 'GET /pro/success')) {
      const url = new URL(examplePath(r), 'http://x');
      const names = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const words = new RegExp(`^${r.path.replace(/\{\w+\}/g, '([^/]+)')}$`).exec(url.pathname);
      expect(words, r.id).not.toBeNull();
      const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(words![i + 1]!)]));
      // The body of a POST route is the caller's: the example gives its path and query.
      expect(() => parseRouteInput(r, params, Object.fromEntries(url.searchParams)), `${r.id}: ${url.pathname}${url.search}`).not.toThrow();
    }
  });

  it('llms-full.txt has every JSON route with parameters, price and an example request, both payment flows with exact headers, and a real example response', async () => {
    const full = await text(`${stack.url}/llms-full.txt`);
    for (const r of ROUTES) {
      expect(full, r.id).toContain(`### ${r.method} ${r.path}`);
      if (isChargeable(r, stack.config)) expect(full, r.id).toContain(`${usdToAtomic(r.priceUsd!)} USDC atomic units`);
    }
    for (const h of [
      'PAYMENT-REQUIRED',
      'PAYMENT-SIGNATURE',
      'PAYMENT-RESPONSE',
      'X-PAYMENT',
      'X-PAYMENT-RESPONSE',
      'Authorization: Bearer',
      '_meta["x402/payment"]',
    ])
      expect(full).toContain(h);
    expect(full).toContain('## Methods of derived figures');
    const stored = (await getJson(stack.url, '/v1/price/CL')).body;
    expect(full).toContain(`"instrument":"CL","value":${stored.value}`);
  });

  it('SKILL.md has Agent Skills front matter (name <= 64 lower-case-hyphenated, description <= 1024) and a body under 500 lines', async () => {
    const skill = await text(`${stack.url}/SKILL.md`);
    const [, front, body] = skill.split(/^---$/m);
    const name = /^name: (.+)$/m.exec(front!)![1]!;
    expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(name.length).toBeLessThanOrEqual(64);
    const description = front!
      .split(/^description: >-$/m)[1]!
      .replace(/\s+/g, ' ')
      .trim();
    expect(description.length).toBeGreaterThan(50);
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(body!.split('\n').length).toBeLessThan(500);
    expect(body).toContain('PAYMENT-SIGNATURE');
  });

  it('the agent card is an A2A 0.3.0 AgentCard (validated against the A2A JSON schema) at both well-known paths, and claims no A2A endpoint', async () => {
    // test/docs/fixtures/README.md names the schema's source: a2aproject/A2A v0.3.0, specification/json/a2a.json.
    const a2a = JSON.parse(readFileSync(new URL('./fixtures/a2a-v0.3.0.json', import.meta.url), 'utf8'));
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile({ ...a2a, $ref: '#/definitions/AgentCard' });
    const card = (await getJson(stack.url, '/.well-known/agent-card.json')).body;
    expect(validate(card) ? [] : validate.errors).toEqual([]);
    expect((await getJson(stack.url, '/.well-known/agent.json')).body).toEqual(card);
    // The validator has teeth: the fields the issue found missing are required.
    for (const field of ['url', 'protocolVersion', 'capabilities']) {
      const { [field]: _dropped, ...without } = card;
      expect(validate(without), field).toBe(false);
    }
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: stack.url, version: '0.1.0', defaultInputModes: ['application/json'] });
    expect(card.documentationUrl).toBe(`${stack.url}/llms-full.txt`);
    expect(card.extensions).toBeUndefined();
    const access = card.capabilities.extensions.find((e: any) => e.uri === 'urn:commodity-data:a2a-extension:access:v1');
    expect(access).toMatchObject({ required: true, params: { a2a_endpoint: null, openapi: `${stack.url}/openapi.json` } });
    expect(card.skills.map((s: any) => s.id)).toEqual(expect.arrayContaining(['price', 'inventory', 'cot', 'decision']));
  });

  it('/.well-known/x402 and /.well-known/x402.json list every chargeable route with price, payment option and schemas', async () => {
    for (const path of ['/.well-known/x402', '/.well-known/x402.json']) {
      const doc = (await getJson(stack.url, path)).body;
      for (const r of PAID_ROUTES.filter((x) => !x.freeWhen)) {
        const res = doc.resources.find((x: any) => x.route === r.id);
        expect(res, `${path} ${r.id}`).toMatchObject({ method: r.method, price_usd: r.priceUsd, price_atomic: usdToAtomic(r.priceUsd!) });
        expect(res.accepts[0]).toMatchObject({ scheme: 'exact', amount: usdToAtomic(r.priceUsd!), network: expect.stringMatching(/^eip155:/) });
        // A self-contained JSON Schema: inline, or a local $ref into its own $defs.
        expect(res.output.type ?? res.output.anyOf ?? res.output.oneOf ?? res.output.$defs?.[String(res.output.$ref).split('/').pop()!], r.id).toBeDefined();
      }
    }
  });

  it('GET / is a page for people: what is sold (unit, cadence, latest as_of, staleness) but no paid figure, routes with prices, links that all answer', async () => {
    const res = await fetch(`${stack.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    const catalog = (await getJson(stack.url, '/v1/catalog')).body;
    for (const i of catalog.instruments.filter((x: any) => x.live)) {
      expect(html, i.code).toContain(`<code>${i.code}</code>`);
      if (i.latest_as_of) expect(html, i.code).toContain(i.latest_as_of);
    }
    // The figures themselves are sold: none is on the page.
    const prices = (
      await getJson(
        stack.url,
        `/v1/prices?codes=${catalog.instruments
          .filter((x: any) => x.live)
          .map((x: any) => x.code)
          .join(',')}`,
      )
    ).body;
    expect(prices.observations.length).toBeGreaterThan(20);
    for (const o of prices.observations) {
      expect(html, o.instrument).not.toContain(`${o.value} ${o.unit}`);
      // Not in the instrument's row either, in any form (a number token of its own).
      const row = html.slice(html.indexOf(`<td data-label="code"><code>${o.instrument}</code>`)).split('</tr>')[0]!;
      expect(row.length, o.instrument).toBeGreaterThan(50);
      expect(row, o.instrument).not.toMatch(new RegExp(`(^|[^\\d.])${String(o.value).replace('.', '\\.')}(?![\\d])`));
    }
    for (const r of PAID_ROUTES.filter((x) => !x.freeWhen)) expect(html).toContain(`${r.priceUsd} USD`);
    const links = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(10);
    for (const href of new Set(links)) expect((await fetch(`${stack.url}${href}`)).status, href).toBe(200);
  });

  it('GET / lists the curve and calendar stubs as free while stubbed, and names the stale data when /health is degraded', async () => {
    const html = await text(`${stack.url}/`);
    const rowOf = (path: string) => html.slice(html.indexOf(`<td data-label="route"><code>GET ${path}</code>`)).split('</tr>')[0]!;
    for (const r of PAID_ROUTES.filter((x) => x.freeWhen)) {
      expect(rowOf(r.path), r.id).toContain('free while stubbed');
      expect(rowOf(r.path), r.id).not.toContain(`${r.priceUsd} USD`);
    }
    expect(rowOf('/v1/price/{code}')).toContain('0.01 USD');
    const health = (await getJson(stack.url, '/health')).body;
    // The replayed samples end in 2025-2026: some sources are stale today (README "What the demo data holds").
    expect(health.status).toBe('degraded');
    expect(html).toContain('Some data is stale');
    for (const s of health.sources) {
      if (s.stale) expect(html, s.id).toContain(s.name);
    }
    const staleCode = (await getJson(stack.url, '/v1/catalog')).body.instruments.find((i: any) => i.stale === true);
    expect(html.slice(html.indexOf(`<td data-label="code"><code>${staleCode.code}</code>`)).split('</tr>')[0]).toContain('class="stale"');
  });

  it('the catalog gives each served instrument its latest as_of, staleness and only the routes that serve it', async () => {
    const catalog = (await getJson(stack.url, '/v1/catalog')).body;
    const cl = catalog.instruments.find((i: any) => i.code === 'CL');
    expect(cl).toMatchObject({ live: true, latest_as_of: (await getJson(stack.url, '/v1/price/CL')).body.as_of, stale: expect.any(Boolean) });
    expect(Object.keys(cl.pricing_usd)).toContain('GET /v1/cot/{code}');
    const io = catalog.instruments.find((i: any) => i.code === 'IO'); // iron ore: no CFTC disaggregated market
    expect(Object.keys(io.pricing_usd)).not.toContain('GET /v1/cot/{code}');
    const pa = catalog.instruments.find((i: any) => i.code === 'PA'); // not served: no route sells it
    expect(pa).toMatchObject({ live: false, latest_as_of: null, stale: null, pricing_usd: {} });
  });

  it('documents carry an ETag and answer 304 to If-None-Match; paid answers are never cached (their keyed ETag: test/http/conditional.test.ts)', async () => {
    const first = await fetch(`${stack.url}/openapi.json`);
    const etag = first.headers.get('etag');
    await first.text();
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toContain('max-age');
    const again = await fetch(`${stack.url}/openapi.json`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const paid = await fetch(`${stack.url}/v1/price/CL`);
    await paid.text();
    expect(paid.headers.get('etag')).not.toBe(etag);
    expect(paid.headers.get('cache-control')).toContain('no-store');
  });

  it('a forged Host header is not echoed into the documents', async () => {
    const port = new URL(stack.url).port;
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/llms.txt', headers: { host: 'evil.example/<script>' } }, (res) => {
        let b = '';
        res.on('data', (c) => {
          b += c;
        });
        res.on('end', () => resolve(b));
      });
      req.on('error', reject);
      req.end();
    });
    expect(body).not.toContain('evil.example');
    expect(body).not.toContain('<script>');
  });
});
