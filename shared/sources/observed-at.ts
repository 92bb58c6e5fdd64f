/**
 * `observed_at` of a source observation from the source's rule in the registry (types.ts
 * ObservedAtRule): pure, so every adapter gets the same moment for the same kind of figure.
 */
import { atLocal, endOfDay } from '../calendar';
import type { ObservedAtRule, SourceDef } from './types';

/** The last second (UTC) of the month that holds `date`. */
const endOfMonthUtc = (date: string): string => {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0, 23, 59, 59)).toISOString();
};

/**
 * The moment the rule gives for a figure dated `asOf`, with its basis; `at` is null for a rule
 * of kind none.
 * @example observedAtBy({ kind: 'stated-time', hour: 12, minute: 0, timeZone: 'America/New_York', basis: 'noon buying rate' }, '2025-11-28') // { at: '2025-11-28T17:00:00.000Z', basis: 'noon buying rate' }
 */
const observedAtBy = (rule: ObservedAtRule, asOf: string): { at: string | null; basis: string } => {
  switch (rule.kind) {
    case 'stated-time':
      return { at: atLocal(asOf, rule.hour, rule.minute, rule.timeZone), basis: rule.basis };
    case 'end-of-day':
      return { at: endOfDay(asOf, rule.timeZone), basis: rule.basis };
    case 'end-of-month':
      return { at: endOfMonthUtc(asOf), basis: rule.basis };
    case 'end-of-year':
      return { at: `${asOf.slice(0, 4)}-12-31T23:59:59.000Z`, basis: rule.basis };
    case 'none':
      return { at: null, basis: rule.basis };
  }
};

/** The `observed_at` of one observation of `def`: its instrument's rule, else the source's. */
const observedAtOf = (def: SourceDef, instrument: string, asOf: string): { at: string | null; basis: string } =>
  observedAtBy(def.observedAtByInstrument?.[instrument] ?? def.observedAt, asOf);

export { observedAtOf };
