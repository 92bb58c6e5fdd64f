/** Bodies of the decision family: deterministic rule-based packs with their ruleset and inputs digest. */
import * as z from '../zod';
import { IsoDateSchema, missingOf, Sector, ServedObservation, Signal } from './common';

const RuleId = z.enum(['price_range_1y', 'spread_vs_history', 'managed_money_percentile', 'inventory_surprise']);

const Ruleset = z
  .strictObject({
    version: z.string(),
    rules: z.array(z.strictObject({ id: z.string(), applies_to: z.string(), inputs: z.string(), method: z.string(), fires: z.string() })),
    thresholds: z.record(z.string(), z.record(z.string(), z.number())),
    combination: z.string(),
  })
  .register(z.globalRegistry, { id: 'DecisionRuleset', description: 'The versioned rules, thresholds and combination of the decision packs.' });

const Summary = z.strictObject({
  instruments: z.int().check(z.nonnegative()),
  bullish: z.int().check(z.nonnegative()),
  bearish: z.int().check(z.nonnegative()),
  neutral: z.int().check(z.nonnegative()),
  net_score: z.int(),
  stale: z.int().check(z.nonnegative()),
  bias: Signal,
  text: z.string(),
});

const InputsDigest = z.strictObject({ algorithm: z.string(), method: z.string(), count: z.int().check(z.nonnegative()), value: z.string() });

/** An input of a rule by reference (the compact view): enough to find and check it, no per-call provenance. */
const InputRef = z
  .strictObject({ instrument: z.string(), as_of: IsoDateSchema, value: z.nullable(z.number()), unit: z.string(), quality: z.nullable(z.string()) })
  .register(z.globalRegistry, { id: 'DecisionInputRef', description: 'A rule input by reference: instrument, as_of, value, unit and quality.' });

const sectorPackOf = <I extends z.ZodMiniType>(input: I) =>
  z.strictObject({
    pack: z.literal('decision'),
    sector: Sector,
    rules_version: z.string(),
    as_of: z.nullable(IsoDateSchema),
    summary: Summary,
    signals: z.array(
      z.strictObject({
        instrument: z.string(),
        signal_for: z.string(),
        as_of: z.nullable(IsoDateSchema),
        signal: Signal,
        score: z.int(),
        stale: z.boolean(),
        stale_reason: z.nullable(z.string()),
        fired_rules: z.array(RuleId),
        evaluations: z.array(
          z.strictObject({
            rule: RuleId,
            signal: Signal,
            fired: z.boolean(),
            reason: z.string(),
            values: z.record(z.string(), z.nullable(z.union([z.string(), z.number()]))),
            inputs: z.array(input),
          }),
        ),
      }),
    ),
    missing: z.array(missingOf('input')),
    inputs_digest: InputsDigest,
  });

const SectorPack = sectorPackOf(ServedObservation).register(z.globalRegistry, {
  id: 'DecisionSectorPack',
  description: 'The deterministic signals of one sector with their inputs.',
});
const SectorPackCompact = sectorPackOf(InputRef).register(z.globalRegistry, {
  id: 'DecisionSectorPackCompact',
  description: 'The deterministic signals of one sector, inputs by reference.',
});

const about = { ruleset: Ruleset, disclaimer: z.string() };

const DecisionBody = z.extend(SectorPack, { ...about, view: z.literal('full') }).register(z.globalRegistry, {
  id: 'DecisionPack',
  description: 'The decision pack of one sector, with the ruleset and every input observation (view=full).',
});
const DecisionCompactBody = z.extend(SectorPackCompact, { ...about, view: z.literal('compact'), full_view: z.string() }).register(z.globalRegistry, {
  id: 'DecisionPackCompact',
  description: 'The decision pack of one sector (default view): inputs by reference, byte-identical for the same stored inputs.',
});

const allOf = <P extends z.ZodMiniType>(sector: P) =>
  z.strictObject({
    ...about,
    pack: z.literal('decision'),
    sector: z.literal('all'),
    rules_version: z.string(),
    as_of: z.nullable(IsoDateSchema),
    summary: Summary,
    sectors: z.array(sector),
    inputs_digest: InputsDigest,
  });

const DecisionAllBody = z.extend(allOf(SectorPack), { view: z.literal('full') });
const DecisionAllCompactBody = z.extend(allOf(SectorPackCompact), { view: z.literal('compact'), full_view: z.string() });

const DecisionView = z.discriminatedUnion('view', [DecisionCompactBody, DecisionBody]);
const DecisionAllView = z.discriminatedUnion('view', [DecisionAllCompactBody, DecisionAllBody]);

export { DecisionView, DecisionAllView };
