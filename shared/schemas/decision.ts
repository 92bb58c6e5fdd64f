/** Bodies of the decision family: deterministic rule-based packs with their ruleset and inputs digest. */
import * as z from 'zod';
import { IsoDateSchema, missingOf, Sector, ServedObservation, Signal } from './common';

const RuleId = z.enum(['price_range_1y', 'spread_vs_history', 'managed_money_percentile', 'inventory_surprise']);

const Ruleset = z
  .strictObject({
    version: z.string(),
    rules: z.array(z.strictObject({ id: z.string(), applies_to: z.string(), inputs: z.string(), method: z.string(), fires: z.string() })),
    thresholds: z.record(z.string(), z.record(z.string(), z.number())),
    combination: z.string(),
  })
  .meta({ id: 'DecisionRuleset', description: 'The versioned rules, thresholds and combination of the decision packs.' });

const Summary = z.strictObject({
  instruments: z.number().int().nonnegative(),
  bullish: z.number().int().nonnegative(),
  bearish: z.number().int().nonnegative(),
  neutral: z.number().int().nonnegative(),
  net_score: z.number().int(),
  bias: Signal,
  text: z.string(),
});

const InputsDigest = z.strictObject({ algorithm: z.string(), method: z.string(), count: z.number().int().nonnegative(), value: z.string() });

const SectorPack = z
  .strictObject({
    pack: z.literal('decision'),
    sector: Sector,
    rules_version: z.string(),
    as_of: IsoDateSchema.nullable(),
    summary: Summary,
    signals: z.array(
      z.strictObject({
        instrument: z.string(),
        signal: Signal,
        score: z.number().int(),
        fired_rules: z.array(RuleId),
        evaluations: z.array(
          z.strictObject({
            rule: RuleId,
            signal: Signal,
            fired: z.boolean(),
            reason: z.string(),
            values: z.record(z.string(), z.union([z.string(), z.number()]).nullable()),
            inputs: z.array(ServedObservation),
          }),
        ),
      }),
    ),
    missing: z.array(missingOf('input')),
    inputs_digest: InputsDigest,
  })
  .meta({ id: 'DecisionSectorPack', description: 'The deterministic signals of one sector with their inputs.' });

// A derived schema inherits its parent's registry id: give it its own.
const DecisionBody = SectorPack.extend({ ruleset: Ruleset, disclaimer: z.string() }).meta({
  id: 'DecisionPack',
  description: 'The decision pack of one sector, with the ruleset.',
});

const DecisionAllBody = z.strictObject({
  ruleset: Ruleset,
  disclaimer: z.string(),
  pack: z.literal('decision'),
  sector: z.literal('all'),
  rules_version: z.string(),
  as_of: IsoDateSchema.nullable(),
  summary: Summary,
  sectors: z.array(SectorPack),
  inputs_digest: InputsDigest,
});

export { DecisionBody, DecisionAllBody };
