/**
 * The vintage rules (shared/observation/vintage.ts): when a figure became known, what a run writes
 * when it sees a figure again, and which value each date had at a past instant. Figures are
 * synthetic test values (a WTI-like price), except where a comment names the publication.
 */
import { describe, expect, it } from 'vitest';
import type { StoredObservation } from '../../shared/observation/schema';
import { asKnownAtForm, knownFrom, pointInTimeOf, resolveAt, revises, rewrite, type StoredVintage } from '../../shared/observation/vintage';
import { syntheticObservation } from '../helpers/synthetic-observation';

const stored = (as_of: string, value: number, over: Partial<StoredObservation> = {}): StoredObservation =>
  syntheticObservation(as_of, value, {
    retrieved_at: '2026-03-01T00:00:00.000Z',
    published_at: `${as_of.slice(0, 8)}${String(Number(as_of.slice(8)) + 2).padStart(2, '0')}T15:30:00.000Z`,
    ...over,
  });
const ms = (iso: string) => Date.parse(iso);

describe('knownFrom', () => {
  it('is the revision instant when stored, else the release, else the retrieval', () => {
    expect(knownFrom(stored('2026-02-02', 70))).toBe('2026-02-04T15:30:00.000Z');
    expect(knownFrom(stored('2026-02-02', 70, { known_from: '2026-02-20T00:00:00.000Z' }))).toBe('2026-02-20T00:00:00.000Z');
    expect(knownFrom(stored('2026-02-02', 70, { published_at: null }))).toBe('2026-03-01T00:00:00.000Z');
  });
});

describe('revises', () => {
  it('is a change of the value or of a published number of the record, not of a label or an added field', () => {
    const cot = stored('2026-05-26', 79924, { attributes: { mm_long: 200581, mm_short: 120657, market: 'WTI-PHYSICAL' } });
    expect(revises(cot, { ...cot, value: 79925 })).toBe(true);
    expect(revises(cot, { ...cot, attributes: { ...cot.attributes, mm_long: 200582 } })).toBe(true);
    expect(revises(cot, { ...cot, attributes: { ...cot.attributes, market: 'WTI' } })).toBe(false);
    expect(revises(cot, { ...cot, attributes: { ...cot.attributes, open_interest: 2003795 } })).toBe(false);
    expect(revises(cot, { ...cot, retrieved_at: '2026-06-01T00:00:00.000Z' })).toBe(false);
  });
});

describe('rewrite', () => {
  const seen = '2026-03-10T12:00:00.000Z';

  it('writes a first print without a known-from of its own (its release is), and one without a release with its retrieval', () => {
    expect(rewrite(undefined, stored('2026-02-02', 70), seen)).toEqual({ observation: stored('2026-02-02', 70), vintage: null });
    const noCalendar = stored('2026-02-02', 70, { published_at: null });
    expect(rewrite(undefined, noCalendar, seen).observation.known_from).toBe('2026-03-01T00:00:00.000Z');
  });

  it('keeps when an unchanged figure became known: a revision its own instant, a first print its (new) release', () => {
    const revised = stored('2026-02-02', 71, { known_from: '2026-02-20T00:00:00.000Z' });
    expect(rewrite(revised, stored('2026-02-02', 71), seen)).toEqual({ observation: revised, vintage: null });
    const moved = stored('2026-02-02', 70, { published_at: '2026-02-05T16:00:00.000Z' });
    expect(rewrite(stored('2026-02-02', 70), moved, seen)).toEqual({ observation: moved, vintage: null });
    const drifting = stored('2026-02-02', 70, { published_at: null, known_from: '2026-02-03T00:00:00.000Z' });
    expect(rewrite(drifting, { ...drifting, known_from: undefined, retrieved_at: seen }, seen).observation.known_from).toBe('2026-02-03T00:00:00.000Z');
  });

  it('keeps the value a revision replaces as a vintage known until the retrieval that brought the revision', () => {
    const r = rewrite(stored('2026-02-02', 70), stored('2026-02-02', 70.5, { retrieved_at: seen }), seen);
    expect(r.observation).toMatchObject({ value: 70.5, known_from: seen });
    expect(r.vintage).toEqual({ ...stored('2026-02-02', 70), known_from: '2026-02-04T15:30:00.000Z', known_to: seen });
    // A second revision chains: the first revision's value is known from its own instant.
    const later = '2026-04-01T00:00:00.000Z';
    const again = rewrite(r.observation, stored('2026-02-02', 70.25, { retrieved_at: later }), later);
    expect(again.vintage).toMatchObject({ value: 70.5, known_from: seen, known_to: later });
    expect(again.observation).toMatchObject({ value: 70.25, known_from: later });
  });

  it('keeps no vintage of a value that was replaced before its own release (it was never the known one)', () => {
    const early = '2026-02-04T10:00:00.000Z';
    const r = rewrite(stored('2026-02-02', 70), stored('2026-02-02', 70.5, { retrieved_at: early }), early);
    expect(r.vintage).toBeNull();
    expect(knownFrom(r.observation)).toBe('2026-02-04T15:30:00.000Z');
  });
});

describe('resolveAt', () => {
  const v = (as_of: string, value: number, from: string, to: string): StoredVintage => ({ ...stored(as_of, value), known_from: from, known_to: to });
  const current = [stored('2026-02-02', 70.5, { known_from: '2026-03-10T12:00:00.000Z' }), stored('2026-02-03', 72)];
  const vintages = [v('2026-02-02', 70, '2026-02-04T15:30:00.000Z', '2026-03-10T12:00:00.000Z')];

  it('answers each date as known then: before its release nothing, inside the old interval the old value, after the revision the new', () => {
    expect(resolveAt(current, vintages, ms('2026-02-04T15:29:59.999Z'))).toEqual([]);
    expect(resolveAt(current, vintages, ms('2026-02-04T15:30:00.000Z')).map((o) => o.value)).toEqual([70]);
    expect(resolveAt(current, vintages, ms('2026-02-06T00:00:00.000Z')).map((o) => [o.as_of, o.value])).toEqual([
      ['2026-02-02', 70],
      ['2026-02-03', 72],
    ]);
    expect(resolveAt(current, vintages, ms('2026-03-10T12:00:00.000Z')).map((o) => o.value)).toEqual([70.5, 72]);
  });
});

describe('as answered at a past instant', () => {
  it('says the instant and the known-from on the figure, and not when its value stopped being the known one', () => {
    const old: StoredVintage = { ...stored('2026-02-02', 70), known_from: '2026-02-04T15:30:00.000Z', known_to: '2026-03-10T12:00:00.000Z' };
    const answered = asKnownAtForm(old, '2026-02-10T00:00:00.000Z');
    expect(answered.attributes).toEqual({ as_known_at: '2026-02-10T00:00:00.000Z', known_from: '2026-02-04T15:30:00.000Z' });
    expect('known_to' in answered).toBe(false);
  });

  it('gives a figure computed from several inputs the instant and the latest known-from among them', () => {
    const a = { attributes: { as_known_at: '2026-02-10T00:00:00.000Z', known_from: '2026-02-04T15:30:00.000Z' } };
    const b = { attributes: { as_known_at: '2026-02-10T00:00:00.000Z', known_from: '2026-02-09T15:30:00.000Z' } };
    expect(pointInTimeOf([a, b])).toEqual({ as_known_at: '2026-02-10T00:00:00.000Z', known_from: '2026-02-09T15:30:00.000Z' });
    expect(pointInTimeOf([{ attributes: {} }])).toEqual({});
  });
});
