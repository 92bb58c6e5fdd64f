/**
 * The remembered route input (shared/http/route-input-memo.ts): the same route and raw input give
 * the parsed input parseRouteInput gives, shared and frozen; a refusal is checked every time.
 */
import { describe, expect, it } from 'vitest';
import { rememberedRouteInput } from '../../shared/http/route-input-memo';
import { parseRouteInput } from '../../shared/routes/input';
import { findRoute } from '../../shared/routes/table';

const history = findRoute('GET /v1/history/{code}')!;

describe('remembered route input', () => {
  it('answers a repeated input with the parsed input of the first, equal to a fresh parse and frozen', () => {
    const parse = rememberedRouteInput();
    const first = parse(history, { code: 'CL' }, { limit: '20' });
    expect(first).toEqual(parseRouteInput(history, { code: 'CL' }, { limit: '20' }));
    expect(parse(history, { code: 'CL' }, { limit: '20' })).toBe(first);
    expect(Object.isFrozen(first.query)).toBe(true);
    // Another value, another parse.
    expect(parse(history, { code: 'CL' }, { limit: '21' })).toEqual(parseRouteInput(history, { code: 'CL' }, { limit: '21' }));
  });

  it('tells a query member without a value from an absent one, and a value with separators from two members', () => {
    const parse = rememberedRouteInput();
    expect(parse(history, { code: 'CL' }, {})).toEqual(parseRouteInput(history, { code: 'CL' }, {}));
    // Present without a value: refused as parseRouteInput refuses it, not answered as the empty query.
    expect(() => parse(history, { code: 'CL' }, { bogus: undefined })).toThrow();
    expect(() => parse(history, { code: 'CL' }, { 'limit=20&bogus': '1' })).toThrow();
  });

  it('checks a refused input every time (nothing remembered), and keeps at most its limit', () => {
    const parse = rememberedRouteInput(2);
    expect(() => parse(history, { code: 'CL' }, { limit: 'many' })).toThrow();
    expect(() => parse(history, { code: 'CL' }, { limit: 'many' })).toThrow();
    const a = parse(history, { code: 'CL' }, { limit: '1' });
    parse(history, { code: 'CL' }, { limit: '2' });
    parse(history, { code: 'CL' }, { limit: '3' });
    // The oldest went first: an equal answer, but parsed anew.
    const again = parse(history, { code: 'CL' }, { limit: '1' });
    expect(again).toEqual(a);
    expect(again).not.toBe(a);
  });
});
