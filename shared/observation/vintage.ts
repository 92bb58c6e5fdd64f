/**
 * Pure: when a stored figure was known, and which value a series had at a past instant (its
 * vintage, as ALFRED's real-time periods: known from / known to).
 *
 * A figure as first published is known from its `published_at` (the publisher's release calendar).
 * A revised figure is known from the instant the run that fetched the revision saw it (never
 * earlier: no look-ahead); the value it replaced is kept as a vintage, known from its own
 * known-from until that instant. The current item stores `known_from` only when it is not its
 * `published_at` (a revision, or a figure without a release calendar), so a figure as first
 * published carries no copy of its release instant.
 */
import type { AttributeValue, Observation, StoredObservation } from './schema';

/** An old value of a revised figure, with the interval it was the known value: [known_from, known_to). */
type StoredVintage = StoredObservation & { known_from: string; known_to: string };

/**
 * When a stored figure became known: its revision instant, else its release, else when this
 * service retrieved it.
 * @example knownFrom({ published_at: '2026-02-11T15:30:00.000Z', retrieved_at: '…' }) // '2026-02-11T15:30:00.000Z'
 */
const knownFrom = (o: Pick<StoredObservation, 'known_from' | 'published_at' | 'retrieved_at'>): string => o.known_from ?? o.published_at ?? o.retrieved_at;

/** Whether a current figure was known at `t` (epoch ms). */
const isKnownAt = (o: StoredObservation, t: number): boolean => Date.parse(knownFrom(o)) <= t;

/** Whether a vintage was the known value at `t` (epoch ms). */
const isVintageAt = (v: StoredVintage, t: number): boolean => Date.parse(v.known_from) <= t && t < Date.parse(v.known_to);

/** The figures a revision compares: the value and every published number of the record (COT legs, balance-sheet lines). */
const figuresOf = (o: StoredObservation): Array<[string, AttributeValue]> => [
  ['value', o.value],
  ...Object.entries(o.attributes).filter(([, v]) => typeof v === 'number'),
];

/**
 * Whether `next` revises `stored`: its value, or a number of the record both carry, differs. A
 * label, a flag or a field the code added (a wording, a new attribute) is not a revision of the
 * publisher's figure.
 */
const revises = (stored: StoredObservation, next: StoredObservation): boolean => {
  if (stored.value !== next.value) return true;
  for (const [k, v] of figuresOf(stored)) {
    const w = next.attributes[k];
    if (k !== 'value' && typeof w === 'number' && w !== v) return true;
  }
  return false;
};

/** The stored form of a figure a run writes again, and the vintage its revision leaves behind. */
interface Rewrite {
  observation: StoredObservation;
  vintage: StoredVintage | null;
}

/**
 * Pure: what a run writes for a figure the store already holds.
 * - Unchanged figures keep their known-from (a re-run does not move when a value became known).
 * - A revision is known from `seenAt` (the retrieval that brought it); the stored value becomes a
 *   vintage known until then. When `seenAt` is not after the stored value's known-from (its release
 *   lies ahead of the retrieval), the stored value was never the known one: no vintage.
 * @param seenAt ISO instant the run retrieved `next`
 */
const rewrite = (stored: StoredObservation | undefined, next: StoredObservation, seenAt: string): Rewrite => {
  const { known_from: _drop, ...fresh } = next;
  if (!stored) return { observation: fresh.published_at ? fresh : { ...fresh, known_from: fresh.retrieved_at }, vintage: null };
  const storedFrom = knownFrom(stored);
  const keep = (from: string): StoredObservation => (from === fresh.published_at ? fresh : { ...fresh, known_from: from });
  if (!revises(stored, next)) {
    // A first print follows its release instant (a calendar fix moves it); a revision keeps its own.
    return { observation: stored.known_from === undefined && fresh.published_at ? fresh : keep(storedFrom), vintage: null };
  }
  if (Date.parse(seenAt) <= Date.parse(storedFrom)) return { observation: keep(storedFrom), vintage: null };
  const { known_to: _old, ...previous } = stored as StoredVintage;
  return { observation: keep(seenAt), vintage: { ...previous, known_from: storedFrom, known_to: seenAt } };
};

/**
 * The value of each as_of known at `t`, from the current items and the vintages of a range:
 * a current item known at `t`, else the vintage whose interval holds `t`. Ascending by as_of.
 * @param t epoch ms
 */
const resolveAt = (current: readonly StoredObservation[], vintages: readonly StoredVintage[], t: number): StoredObservation[] => {
  const byDate = new Map<string, StoredObservation>();
  for (const v of vintages) if (isVintageAt(v, t)) byDate.set(v.as_of, v);
  // Intervals never overlap; a current item known at t wins anyway.
  for (const o of current) if (isKnownAt(o, t)) byDate.set(o.as_of, o);
  return [...byDate.values()].sort((a, b) => a.as_of.localeCompare(b.as_of));
};

/**
 * A stored figure as answered at a past instant: its attributes say the instant asked for and
 * when this value became known; the vintage's own interval end is not answered (it would tell
 * what came later).
 */
const asKnownAtForm = (o: StoredObservation, asKnownAt: string): StoredObservation => {
  const { known_to: _to, ...rest } = o as Partial<StoredVintage> & StoredObservation;
  return { ...rest, attributes: { ...rest.attributes, as_known_at: asKnownAt, known_from: knownFrom(o) } };
};

/**
 * The point-in-time attributes of a figure computed from several inputs: the instant asked for and
 * the latest known-from among them (it was known once all were); {} when no input was answered at a
 * past instant.
 */
const pointInTimeOf = (inputs: ReadonlyArray<Pick<Observation, 'attributes'>>): Record<string, string> => {
  const asked = inputs.find((o) => typeof o.attributes.as_known_at === 'string')?.attributes.as_known_at as string | undefined;
  if (!asked) return {};
  const from = inputs
    .map((o) => o.attributes.known_from)
    .filter((v): v is string => typeof v === 'string')
    .sort((a, b) => Date.parse(a) - Date.parse(b))
    .at(-1);
  return from ? { as_known_at: asked, known_from: from } : { as_known_at: asked };
};

/** Attributes that depend on the instant a call asked for, not on the data (left out of digests). */
const POINT_IN_TIME_ATTRIBUTES = ['as_known_at', 'known_from'] as const;

export { knownFrom, isKnownAt, revises, rewrite, resolveAt, asKnownAtForm, pointInTimeOf, POINT_IN_TIME_ATTRIBUTES };
export type { StoredVintage, Rewrite };
