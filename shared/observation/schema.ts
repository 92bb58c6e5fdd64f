/**
 * The Observation contract (SPEC.md "Observation"): every field always present, `null` where
 * unknown, never a missing key. Stored observations carry everything but the request-time
 * provenance (cache_hit, cache_ttl_s), which the read path adds.
 */
import * as z from '../zod';
import { FRESHNESS_CLASSES } from '../catalog/instruments';

const QUALITIES = ['official', 'indicative', 'derived', 'delayed'] as const;
const QualitySchema = z.enum(QUALITIES);
type Quality = z.infer<typeof QualitySchema>;

/** How an ingestion run got its payloads: fetched from the publisher, or the bundled samples. */
const RETRIEVALS = ['live', 'replay'] as const;
type Retrieval = (typeof RETRIEVALS)[number];

const IsoDateSchema = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'));
const IsoDateTimeSchema = z.iso.datetime({ offset: true });

const SourceRefSchema = z.object({
  name: z.nullable(z.string()),
  series_id: z.nullable(z.string()),
  url: z.nullable(z.string()),
});
type SourceRef = z.infer<typeof SourceRefSchema>;

const ProvenanceSchema = z.object({
  retrieved_at: z.nullable(IsoDateTimeSchema),
  cache_hit: z.nullable(z.boolean()),
  cache_ttl_s: z.nullable(z.int().check(z.nonnegative())),
  /**
   * On a series' latest figure (price, prices, fx, spreads): whether its as_of lags today by more
   * than its cadence allows; null for classes without a cadence. Absent on history points.
   */
  stale: z.optional(z.nullable(z.boolean())),
  /** On a series' latest figure: the as_of its next release should carry; null without a cadence. */
  expected_next_as_of: z.optional(z.nullable(IsoDateSchema)),
  /**
   * How the figure reached this service: `live` from the publisher, `replay` from the recorded
   * publications bundled with it (demo data); a figure computed from several says `replay` when any
   * input was replayed. null when not recorded.
   */
  retrieval: z.optional(z.nullable(z.enum(RETRIEVALS))),
});
type Provenance = z.infer<typeof ProvenanceSchema>;

/** Extra attributes of multi-field records (COT legs, balance-sheet lines); numbers or labels. */
/** An attribute value: a figure, a label, a flag (`synthetic: true`) or null. */
type AttributeValue = string | number | boolean | null;
const AttributesSchema = z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()]));

const ObservationSchema = z.object({
  instrument: z.string().check(z.minLength(1)),
  // Finite: zod 4 numbers refuse Infinity and NaN (classic's .finite() was a no-op).
  value: z.number(),
  unit: z.string().check(z.minLength(1)),
  as_of: IsoDateSchema,
  observed_at: z.nullable(IsoDateTimeSchema),
  freshness_class: z.enum(FRESHNESS_CLASSES),
  quality: z.nullable(QualitySchema),
  derived: z.boolean(),
  source: z.nullable(SourceRefSchema),
  license_tag: z.string().check(z.minLength(1)),
  provenance: z.nullable(ProvenanceSchema),
  /** When the publisher released this figure, from its release calendar; null where the release is not known. */
  published_at: z.nullable(IsoDateTimeSchema),
  /** The publisher's next scheduled release after the moment of the answer, from its release calendar. */
  next_release_at: z.nullable(IsoDateTimeSchema),
  /** Multi-field records keep their named parts here; {} when none. */
  attributes: AttributesSchema,
});
type Observation = z.infer<typeof ObservationSchema>;

/**
 * What ingestion writes: an observation without the request-time provenance, plus what the read
 * path needs to build it (the source's id for next_release_at, how the run got it).
 */
type StoredObservation = Omit<Observation, 'provenance'> & {
  retrieved_at: string;
  source_id?: string;
  retrieval?: Retrieval;
  /**
   * When this value became known, where that is not its published_at: the retrieval that brought a
   * revision, or the first retrieval of a figure without a release calendar (observation/vintage.ts).
   */
  known_from?: string;
  /** A live run's first retrieval of this figure (observation/vintage.ts); absent for replayed figures. Not served. */
  first_seen_at?: string;
};

export { QualitySchema, IsoDateSchema, IsoDateTimeSchema, ObservationSchema };
export type { Quality, SourceRef, Provenance, Observation, StoredObservation, AttributeValue, Retrieval };
