/**
 * Pieces shared by the response-body schemas: the served observation (strict: a key the contract
 * does not name is a drift, not an extension), the "missing" lists and source freshness.
 */
import * as z from '../zod';
import { FRESHNESS_CLASSES, SECTORS } from '../catalog/instruments';
import { IsoDateSchema, IsoDateTimeSchema, ObservationSchema } from '../observation/schema';

/** An observation as served: every field of SPEC.md "Observation", no other. */
const ServedObservation = z
  .strictObject(ObservationSchema.shape)
  .register(z.globalRegistry, { id: 'Observation', description: 'One primary-source or derived figure (SPEC.md "Observation").' });
const MaybeObservation = z.nullable(ServedObservation);

const FreshnessClass = z.enum(FRESHNESS_CLASSES);
const Sector = z.enum(SECTORS);
const Signal = z.enum(['bullish', 'bearish', 'neutral']);
const HealthStatus = z.enum(['ok', 'degraded', 'down']);

/** A part of a bundle that could not be served, and why (never silently dropped). */
const missingOf = <K extends string>(key: K) => z.strictObject({ [key]: z.string(), reason: z.string() } as Record<K | 'reason', z.ZodMiniString<string>>);

/** One ingestion source's freshness (GET /health, snapshot staleness). */
// A pure IIFE: a bundle that never reads it (a family without /health or snapshots) leaves it out.
const SourceFreshness = /* @__PURE__ */ (() =>
  z
    .strictObject({
      id: z.string(),
      name: z.string(),
      feeds: z.string(),
      last_attempt_at: z.nullable(IsoDateTimeSchema),
      last_success_at: z.nullable(IsoDateTimeSchema),
      age_s: z.nullable(z.number()),
      max_age_h: z.number(),
      stale: z.boolean(),
      last_error: z.nullable(z.string()),
      next_release_at: z.nullable(IsoDateTimeSchema),
      quarantined: z.array(z.strictObject({ series: z.string(), as_of: IsoDateSchema, value: z.nullable(z.number()), reason: z.string() })),
      newest_as_of: z.nullable(IsoDateSchema),
      stale_reason: z.nullable(z.string()),
      /** Between its publishing seasons (NASS Crop Progress: April to November): not stale, with the next release. */
      off_season: z.nullable(z.string()),
    })
    .register(z.globalRegistry, {
      id: 'SourceFreshness',
      description: 'One source: last attempt and success, age, staleness of its runs and of its data, next release.',
    }))();

/** Texts that state how derived figures are computed, keyed by figure. */
const MethodTexts = z.record(z.string(), z.string());

export {
  ServedObservation,
  MaybeObservation,
  FreshnessClass,
  Sector,
  Signal,
  HealthStatus,
  missingOf,
  SourceFreshness,
  MethodTexts,
  IsoDateSchema,
  IsoDateTimeSchema,
};
