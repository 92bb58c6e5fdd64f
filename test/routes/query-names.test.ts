/**
 * Unknown query parameters (issue 34 "A typo must not buy today's data"): the names a route accepts
 * come from its query schema in the route table, the same names the OpenAPI document lists; any
 * other is an issue naming it and the accepted ones.
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../shared/docs/openapi';
import { parseRouteInput } from '../../shared/routes/input';
import { findRoute, ROUTES } from '../../shared/routes';
import { queryNamesOf, unknownQueryIssues } from '../../shared/routes/query-names';

const route = (id: string) => findRoute(id)!;

describe('query parameters a route accepts', () => {
  it('every route of the table has a list, and it is the query parameters its OpenAPI operation lists', () => {
    const doc = buildOpenApi('https://api.example.com', 'https://api.example.com', undefined, { INDICATIVE_FUTURES: false, X402_NETWORK: 'eip155:84532' });
    for (const r of ROUTES) {
      const op = (doc.paths[r.path] as Record<string, { parameters: Array<{ name: string; in: string }>; responses: Record<string, { description: string }> }>)[
        r.method.toLowerCase()
      ]!;
      const documented = op.parameters.filter((p) => p.in === 'query').map((p) => p.name);
      expect([...queryNamesOf(r.query)].sort(), r.id).toEqual(documented.sort());
      // The document states the refusal, with the same names.
      expect(op.responses[400]!.description, r.id).toMatch(/refused \(400 INVALID_PARAMETER naming it/);
      for (const name of documented) expect(op.responses[400]!.description, r.id).toContain(name);
    }
  });

  it('names the misspelt as_known_at and what the price route accepts', () => {
    const issues = unknownQueryIssues(route('GET /v1/price/{code}'), { asknownat: '2020-01-01T00:00:00Z' });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: ['asknownat'] });
    expect(issues[0]!.message).toBe('unknown query parameter asknownat; GET /v1/price/{code} accepts: as_known_at');
  });

  it('names from and to on history, and lists start, end and the rest', () => {
    const issues = unknownQueryIssues(route('GET /v1/history/{code}'), { from: '2024-01-01', to: '2024-02-01', limit: '10' });
    expect(issues.map((i) => i.path)).toEqual([['from'], ['to']]);
    expect(issues[0]!.message).toBe('unknown query parameter from; GET /v1/history/{code} accepts: start, end, limit, frequency, cursor, as_known_at');
  });

  it('refuses any parameter on a free route without parameters, and none when the query is empty or known', () => {
    expect(unknownQueryIssues(route('GET /health'), { verbose: '1' })[0]!.message).toBe(
      'unknown query parameter verbose; GET /health accepts no query parameters',
    );
    expect(unknownQueryIssues(route('GET /health'), undefined)).toEqual([]);
    expect(unknownQueryIssues(route('GET /v1/prices'), { codes: 'CL', as_known_at: '2026-02-11T15:31:00Z' })).toEqual([]);
  });

  it('parsing a route input fails with the unknown parameter listed beside any other issue', () => {
    expect(() => parseRouteInput(route('GET /v1/price/{code}'), { code: 'CL' }, { asknownat: '2020-01-01T00:00:00Z' })).toThrow(/asknownat/);
    try {
      parseRouteInput(route('GET /v1/history/{code}'), { code: 'CL' }, { from: '2024-01-01', limit: '0' });
      expect.unreachable();
    } catch (err) {
      const paths = (err as { issues: Array<{ path: string[] }> }).issues.map((i) => i.path.join('.'));
      expect(paths).toEqual(['from', 'limit']);
    }
    // Known parameters still parse.
    expect(parseRouteInput(route('GET /v1/price/{code}'), { code: 'cl' }, { as_known_at: '2026-02-11T15:31:00Z' })).toEqual({
      params: { code: 'CL' },
      query: { as_known_at: '2026-02-11T15:31:00.000Z' },
    });
  });
});
