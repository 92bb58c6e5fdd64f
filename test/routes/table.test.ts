import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SPEC_PAID_ROUTES } from '../helpers/spec-prices';
import { FAMILIES, FAMILY_ROUTES, FREE_ROUTES, PAID_ROUTES, PRICES_USD, ROUTES, matchRoute, usdToAtomic, usdToCents, usdToCredits } from '../../shared/routes';

/** SPEC.md "Free discovery (price 0)". */
const SPEC_FREE_PATHS = [
  '/health',
  '/v1/catalog',
  '/v1/calendar',
  '/llms.txt',
  '/llms-full.txt',
  '/openapi.json',
  '/SKILL.md',
  '/.well-known/agent.json',
  '/.well-known/x402.json',
  '/terms.txt',
  '/api/mcp',
];

describe('route table', () => {
  it('has exactly the paid routes of the spec, each GET with its price key and price', () => {
    expect(PAID_ROUTES.map((r) => [r.path, r.priceKey, r.priceUsd])).toEqual(SPEC_PAID_ROUTES);
    for (const r of PAID_ROUTES) expect(r.method).toBe('GET');
  });

  it('has every free route of the spec (GET, no price), POST /api/mcp, and unique ids', () => {
    for (const path of SPEC_FREE_PATHS) expect(ROUTES.find((r) => r.id === `GET ${path}`)?.priceKey, path).toBeNull();
    expect(FREE_ROUTES.every((r) => r.priceUsd === null)).toBe(true);
    expect(ROUTES.filter((r) => r.path === '/api/mcp').map((r) => r.method)).toContain('POST');
    expect(new Set(ROUTES.map((r) => r.id)).size).toBe(ROUTES.length);
  });

  it('splits into one group per family (what each Lambda bundles), together exactly the table', () => {
    for (const f of FAMILIES) {
      expect(FAMILY_ROUTES[f].family).toBe(f);
      expect(FAMILY_ROUTES[f].routes.length, f).toBeGreaterThan(0);
      for (const r of FAMILY_ROUTES[f].routes) expect(r.family, r.id).toBe(f);
    }
    const grouped = FAMILIES.flatMap((f) => FAMILY_ROUTES[f].routes);
    expect(grouped.map((r) => r.id).sort()).toEqual(ROUTES.map((r) => r.id).sort());
    expect(grouped.every((r) => ROUTES.includes(r))).toBe(true);
  });

  it('gives every paid route an MCP tool with a unique snake_case name of at most 64 characters', () => {
    const tools = PAID_ROUTES.map((r) => r.mcp?.tool);
    for (const t of tools) expect(t).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
    expect(new Set(tools).size).toBe(PAID_ROUTES.length);
  });

  it('prices every paid route from the price table and no free one', () => {
    for (const r of PAID_ROUTES) expect(r.priceUsd).toBe(PRICES_USD[r.priceKey!]);
    for (const r of ROUTES.filter((x) => !x.priceKey)) expect(r.priceUsd).toBeNull();
    expect(Object.keys(PRICES_USD).sort()).toEqual(PAID_ROUTES.map((r) => r.priceKey).sort());
  });

  it('has a Lambda entry module for every family', () => {
    for (const f of FAMILIES) expect(existsSync(new URL(`../../functions/${f}.ts`, import.meta.url)), f).toBe(true);
  });
});

describe('pricing (integers only)', () => {
  it.each([
    ['0.01', 1, '10000'],
    ['0.02', 2, '20000'],
    ['0.10', 10, '100000'],
    ['0.12', 12, '120000'],
    ['0.25', 25, '250000'],
    ['19', 1900, '19000000'],
    ['0.1', 10, '100000'],
  ])('%s USD = %i credits = %s USDC atomic units', (usd, credits, atomic) => {
    expect(usdToCredits(usd)).toBe(credits);
    expect(usdToAtomic(usd)).toBe(atomic);
  });

  it('refuses amounts that are not whole cents', () => {
    expect(() => usdToCents('0.015')).toThrow(/at most 2 decimals/);
    expect(() => usdToCents('-1')).toThrow();
    expect(() => usdToCents('1e3')).toThrow();
  });
});

describe('matchRoute', () => {
  it('prefers the fixed /all paths over {sector}', () => {
    const m = matchRoute('GET', '/v1/snapshot/all');
    expect(m && m !== 'method' && m.route.id).toBe('GET /v1/snapshot/all');
    const d = matchRoute('GET', '/v1/decision/energy');
    expect(d && d !== 'method' && d.route.id).toBe('GET /v1/decision/{sector}');
    expect(d && d !== 'method' && d.pathParameters).toEqual({ sector: 'energy' });
  });

  it('decodes path parameters and tells a wrong method from an unknown path', () => {
    const m = matchRoute('GET', '/v1/price/C%4C');
    expect(m && m !== 'method' && m.pathParameters).toEqual({ code: 'CL' });
    expect(matchRoute('DELETE', '/v1/price/CL')).toBe('method');
    expect(matchRoute('GET', '/v1/nothing/here')).toBeNull();
    expect(matchRoute('GET', '/v1/price/')).toBeNull();
  });
});
