/**
 * The dev stage's output check, done once per deep-frozen answer (a cache hit's shared figure):
 * what passed once is not checked again, anything that can still change is checked every time.
 * Values are synthetic.
 */
import { describe, expect, it } from 'vitest';
import { checkOutput } from '../../shared/http/output-check';
import * as z from '../../shared/zod';

const Figure = z.strictObject({ instrument: z.string(), value: z.number(), source: z.strictObject({ name: z.string() }) });
const deepFrozen = <T>(v: T): T => {
  if (v && typeof v === 'object') for (const m of Object.values(v)) deepFrozen(m);
  return Object.freeze(v);
};

describe('checkOutput', () => {
  it('a deep-frozen answer that passed is not parsed again; a failing one fails every time', () => {
    const schema = Figure.clone();
    let parses = 0;
    const counted = schema.check(
      z.superRefine(() => {
        parses++;
      }),
    );
    const good = deepFrozen({ instrument: 'CL', value: 61.5, source: { name: 'EIA' } });
    expect(checkOutput(counted, good).success).toBe(true);
    expect(checkOutput(counted, good).success).toBe(true);
    expect(parses).toBe(1);
    // An equal answer that is another value is checked on its own.
    expect(checkOutput(counted, deepFrozen({ ...good, source: { name: 'EIA' } })).success).toBe(true);
    expect(parses).toBe(2);
    const bad = deepFrozen({ instrument: 'CL', value: '61.5', source: { name: 'EIA' } });
    expect(checkOutput(counted, bad).success).toBe(false);
    expect(checkOutput(counted, bad).success).toBe(false);
  });

  it('an answer frozen only on top is checked every time: a change below it is caught', () => {
    const partly = Object.freeze({ instrument: 'CL', value: 61.5, source: { name: 'EIA' } as { name: unknown } });
    expect(checkOutput(Figure, partly).success).toBe(true);
    partly.source.name = 42;
    const checked = checkOutput(Figure, partly);
    expect(checked.success).toBe(false);
    if (!checked.success) expect(checked.error.issues[0]!.path).toEqual(['source', 'name']);
  });

  it('a frozen answer with a getter is checked every time (its value can change)', () => {
    let value: unknown = 61.5;
    const got = deepFrozen({
      instrument: 'CL',
      get value() {
        return value;
      },
      source: { name: 'EIA' },
    });
    expect(checkOutput(Figure, got).success).toBe(true);
    value = 'n/a';
    expect(checkOutput(Figure, got).success).toBe(false);
  });
});
