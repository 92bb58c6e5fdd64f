/** Bodies of the snapshot family: one sector's headline figures, or all sectors with FX and staleness. */
import * as z from 'zod';
import { HealthStatus, IsoDateSchema, FreshnessClass, missingOf, Sector, ServedObservation, SourceFreshness } from './common';
import { CropProgressBody, ExportSalesBody, UsgsBody, WasdeBody } from './fundamentals';
import { InventoryBundleBody } from './inventory';
import { SpreadBody, StaleSpreadBody } from './spreads';
import { HeadlineLine } from './headline';

const Staleness = z
  .strictObject({
    status: HealthStatus,
    stale_sources: z.array(z.string()),
    oldest_observation: z.strictObject({ instrument: z.string(), as_of: IsoDateSchema, freshness_class: FreshnessClass }).nullable(),
    rule: z.string(),
    sources: z.array(SourceFreshness),
  })
  .meta({ id: 'Staleness', description: 'Freshness of the sources behind the answer.' });

/** Each sector's key fundamentals: the body of their own route, null when none is stored (then listed under missing). */
const SectorFundamentals = z.strictObject({
  inventories: InventoryBundleBody.nullable().optional(),
  crack: z.union([SpreadBody, StaleSpreadBody]).nullable().optional(),
  usgs: UsgsBody.nullable().optional(),
  wasde: WasdeBody.nullable().optional(),
  crop_progress: CropProgressBody.nullable().optional(),
  export_sales: ExportSalesBody.nullable().optional(),
});

const SectorPart = z
  .strictObject({
    sector: Sector,
    as_of: IsoDateSchema.nullable(),
    instruments: z.strictObject({ count: z.number().int().nonnegative(), observations: z.array(ServedObservation) }),
    fundamentals: SectorFundamentals,
    missing: z.array(missingOf('input')),
  })
  .meta({ id: 'SectorSnapshot', description: 'One sector: latest prices, key fundamentals and what is missing.' });

// A derived schema inherits its parent's registry id: give it its own.
const SnapshotBody = SectorPart.extend({ view: z.literal('full'), staleness: Staleness }).meta({
  id: 'Snapshot',
  description: 'The snapshot of one sector, with the staleness of its sources.',
});

const SnapshotAllBody = z.strictObject({
  sector: z.literal('all'),
  as_of: IsoDateSchema.nullable(),
  sectors: z.array(SectorPart),
  fx: z.strictObject({ count: z.number().int().nonnegative(), observations: z.array(ServedObservation), missing: z.array(missingOf('input')) }),
  view: z.literal('full'),
  staleness: Staleness,
});

/** The compact (default) view: headline figures an agent reads into a context window. */
const HeadlineInstrument = z
  .strictObject({
    instrument: z.string(),
    value: z.number().nullable(),
    unit: z.string(),
    as_of: IsoDateSchema,
    change: z.number().nullable(),
    change_since: IsoDateSchema.nullable(),
    quality: z.string().nullable(),
    derived: z.boolean(),
    stale: z.boolean(),
  })
  .meta({ id: 'HeadlineInstrument', description: 'Latest price of one instrument, its change since the previous observation and a stale flag.' });

const SectorHeadline = z
  .strictObject({
    sector: Sector,
    as_of: IsoDateSchema.nullable(),
    instruments: z.array(HeadlineInstrument),
    fundamentals: z.array(HeadlineLine),
    missing: z.array(missingOf('input')),
  })
  .meta({ id: 'SectorHeadline', description: 'One sector in the compact view.' });

const CompactStaleness = z
  .strictObject({
    status: HealthStatus,
    stale_sources: z.array(z.string()),
    stale_figures: z.number().int().nonnegative(),
    oldest_observation: z.strictObject({ instrument: z.string(), as_of: IsoDateSchema, freshness_class: FreshnessClass }).nullable(),
    rule: z.string(),
  })
  .meta({ id: 'CompactStaleness', description: 'Staleness in the compact view (GET /health has every source).' });

const compactEnvelope = { view: z.literal('compact'), full_view: z.string(), staleness: CompactStaleness };

const SnapshotCompactBody = SectorHeadline.extend(compactEnvelope).meta({
  id: 'SnapshotCompact',
  description: 'The default, compact snapshot of one sector (view=full has every observation and balance-sheet line).',
});

const SnapshotAllCompactBody = z
  .strictObject({
    sector: z.literal('all'),
    as_of: IsoDateSchema.nullable(),
    sectors: z.array(SectorHeadline),
    fx: z.array(HeadlineInstrument),
    ...compactEnvelope,
  })
  .meta({ id: 'SnapshotAllCompact', description: 'The default, compact all-sector snapshot (view=full has the full bodies).' });

/** What the snapshot routes answer: the compact view by default, the full one with view=full. */
const SnapshotView = z.discriminatedUnion('view', [SnapshotCompactBody, SnapshotBody]);
const SnapshotAllView = z.discriminatedUnion('view', [SnapshotAllCompactBody, SnapshotAllBody]);

export { SnapshotView, SnapshotAllView, SectorPart, HeadlineInstrument, SectorHeadline };
