/**
 * "Charged or not" has one source (isChargeable): every document a buyer or an agent reads says the
 * same thing as the live call. The curve and calendar-spread stubs are free while indicative futures
 * are off (the local default): the live call answers 200 without payment, and llms.txt,
 * llms-full.txt, SKILL.md, OpenAPI, the agent card, /.well-known/x402.json, the catalog and MCP say
 * free; every other paid route is charged at its price in each of them. Also: the batch-settlement
 * examples name the serving deployment's network.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { buildSkillMd, examplePath } from '../../shared/docs/text';
import { PAID_ROUTES } from '../../shared/routes/table';
import { startTestStack } from '../helpers/stack';

/** The stubs SPEC.md makes free while indicative futures are off (not read from the code under test). */
const STUBS = new Set(['GET /v1/curve/{root}', 'GET /v1/spreads/calendar/{root}']);

describe('every document says what the live call charges (indicative futures off)', () => {
  let stack: LocalStack;
  const docs: Record<string, string> = {};
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: '1' });
    for (const path of [
      '/llms.txt',
      '/llms-full.txt',
      '/SKILL.md',
      '/openapi.json',
      '/.well-known/agent-card.json',
      '/.well-known/x402.json',
      '/v1/catalog',
      '/api/mcp',
    ]) {
      docs[path] = await (await fetch(`${stack.url}${path}`)).text();
    }
  });
  afterAll(() => stack?.close());

  it('the live call: a stub answers 200 unpaid, every other paid route 402', async () => {
    for (const r of PAID_ROUTES) {
      const res = await fetch(`${stack.url}${examplePath(r)}`);
      await res.arrayBuffer();
      expect(res.status, r.id).toBe(STUBS.has(r.id) ? 200 : 402);
    }
  });

  const lineOf = (text: string, r: (typeof PAID_ROUTES)[number], marker: string) =>
    text.split('\n').find((l) => l.includes(marker) && l.includes(r.path.split('{')[0]!))!;

  it.each(PAID_ROUTES.map((r) => [r.id, r] as const))('%s: llms.txt, llms-full.txt and SKILL.md', (id, r) => {
    const llms = lineOf(docs['/llms.txt']!, r, `[${r.method} ${r.path}]`);
    const fullSection = docs['/llms-full.txt']!.split(`### ${r.method} ${r.path}\n`)[1]!.split('\n')[0]!;
    const skill = docs['/SKILL.md']!.split('## Routes')[1]!
      .split('\n')
      .find((l) => l.startsWith(`- ${r.method} ${r.path.split('{')[0]}`))!;
    for (const [doc, line] of [
      ['llms.txt', llms],
      ['llms-full.txt', fullSection],
      ['SKILL.md', skill],
    ] as const) {
      if (STUBS.has(id)) {
        expect(line, `${doc} ${id}`).toContain('free');
        expect(line, `${doc} ${id}`).not.toContain(`${r.priceUsd} USD`);
      } else {
        expect(line, `${doc} ${id}`).toContain(`${r.priceUsd} USD`);
      }
    }
  });

  it('OpenAPI: a stub has no price, no security and no 402; a charged route has all three', () => {
    const doc = JSON.parse(docs['/openapi.json']!);
    for (const r of PAID_ROUTES) {
      const op = doc.paths[r.path].get;
      if (STUBS.has(r.id)) {
        expect(op['x-price-usd'], r.id).toBeUndefined();
        expect(op.security, r.id).toEqual([]);
        expect(op.responses['402'], r.id).toBeUndefined();
        expect(op.description, r.id).toMatch(/Free \(an explicit stub/);
      } else {
        expect(op['x-price-usd'], r.id).toBe(r.priceUsd);
        expect(op.responses['402'], r.id).toBeDefined();
      }
    }
  });

  it('the agent card, /.well-known/x402.json, the catalog and MCP', () => {
    const card = JSON.parse(docs['/.well-known/agent-card.json']!);
    const skillText = card.skills.map((s: { description: string }) => s.description).join('; ');
    const x402 = JSON.parse(docs['/.well-known/x402.json']!);
    const listed = new Set(x402.resources.map((res: { route: string }) => res.route));
    const catalog = JSON.parse(docs['/v1/catalog']!);
    const charged = new Map(catalog.routes.map((c: { id: string; charged: boolean }) => [c.id, c.charged]));
    const tools = new Map(JSON.parse(docs['/api/mcp']!).tools.map((t: { route: string; price_usd: string | null }) => [t.route, t.price_usd]));
    for (const r of PAID_ROUTES) {
      const stub = STUBS.has(r.id);
      expect(skillText, r.id).toContain(stub ? `${r.summary} (free` : `${r.summary} (${r.priceUsd} USD)`);
      expect(listed.has(r.id), r.id).toBe(!stub);
      expect(charged.get(r.id), r.id).toBe(!stub);
      expect(tools.get(r.id), r.id).toBe(stub ? null : r.priceUsd);
    }
  });

  it("SKILL.md's batch example registers this deployment's network; README's pay-batch.ts asks the 402 for it", () => {
    expect(stack.config.X402_NETWORK).toBe('eip155:84532');
    expect(docs['/SKILL.md']).toContain(".register('eip155:84532', scheme)");
    expect(docs['/SKILL.md']).not.toContain("eip155:8453'");
    // The same builder on a mainnet deployment names mainnet.
    expect(buildSkillMd('https://api.example', { INDICATIVE_FUTURES: false, X402_NETWORK: 'eip155:8453' })).toContain(".register('eip155:8453', scheme)");
    const readme = readFileSync('README.md', 'utf8');
    const payBatch = readme.split('// pay-batch.ts')[1]!.split('```')[0]!;
    expect(payBatch).not.toMatch(/register\('eip155:\d+'/);
    expect(payBatch).toContain('.register(accepts[0].network, scheme)');
  });
});

describe('with indicative futures on, the stubs are charged in the documents too (pure builders)', () => {
  it('SKILL.md lists the curve at its price', () => {
    const skill = buildSkillMd('https://api.example', { INDICATIVE_FUTURES: true, X402_NETWORK: 'eip155:8453' });
    const curve = PAID_ROUTES.find((r) => r.id === 'GET /v1/curve/{root}')!;
    expect(skill.split('\n').find((l) => l.startsWith('- GET /v1/curve/'))).toContain(`${curve.priceUsd} USD`);
  });
});
