/** Bodies of the snapshot family: one sector's headline figures, or all sectors with FX and staleness. */
import * as z from '../zod';
import { HealthStatus, IsoDateSchema, FreshnessClass, missingOf, Sector, ServedObservation, SourceFreshness } from './common';
import { CropProgressBody, ExportSalesBody, UsgsBody, WasdeBody } from './fundamentals';
import { InventoryBundleBody } from './inventory';
import { SpreadBody, StaleSpreadBody } from './spreads';
import { HeadlineLine } from './headline';

const Staleness = z
  .strictObject({
    status: HealthStatus,
    stale_sources: z.array(z.string()),
    oldest_observation: z.nullable(z.strictObject({ instrument: z.string(), as_of: IsoDateSchema, freshness_class: FreshnessClass })),
    rule: z.string(),
    sources: z.array(SourceFreshness),
  })
  .register(z.globalRegistry, { id: 'Staleness', description: 'Freshness of the sources behind the answer.' });

/** Each sector's key fundamentals: the body of their own route, null when none is stored (then listed under missing). */
const SectorFundamentals = z.strictObject({
  inventories: z.optional(z.nullable(InventoryBundleBody)),
  crack: z.optional(z.nullable(z.union([SpreadBody, StaleSpreadBody]))),
  usgs: z.optional(z.nullable(UsgsBody)),
  wasde: z.optional(z.nullable(WasdeBody)),
  crop_progress: z.optional(z.nullable(CropProgressBody)),
  export_sales: z.optional(z.nullable(ExportSalesBody)),
});

const SectorPart = z
  .strictObject({
    sector: Sector,
    as_of: z.nullable(IsoDateSchema),
    instruments: z.strictObject({ count: z.int().check(z.nonnegative()), observations: z.array(ServedObservation) }),
    fundamentals: SectorFundamentals,
    missing: z.array(missingOf('input')),
  })
  .register(z.globalRegistry, { id: 'SectorSnapshot', description: 'One sector: latest prices, key fundamentals and what is missing.' });

// A derived schema inherits its parent's registry id: give it its own.
const SnapshotBody = z.extend(SectorPart, { view: z.literal('full'), staleness: Staleness }).register(z.globalRegistry, {
  id: 'Snapshot',
  description: 'The snapshot of one sector, with the staleness of its sources.',
});

const SnapshotAllBody = z.strictObject({
  sector: z.literal('all'),
  as_of: z.nullable(IsoDateSchema),
  sectors: z.array(SectorPart),
  fx: z.strictObject({ count: z.int().check(z.nonnegative()), observations: z.array(ServedObservation), missing: z.array(missingOf('input')) }),
  view: z.literal('full'),
  staleness: Staleness,
});

/** The compact (default) view: headline figures an agent reads into a context window. */
const HeadlineInstrument = z
  .strictObject({
    instrument: z.string(),
    value: z.nullable(z.number()),
    unit: z.string(),
    as_of: IsoDateSchema,
    change: z.nullable(z.number()),
    change_since: z.nullable(IsoDateSchema),
    quality: z.nullable(z.string()),
    derived: z.boolean(),
    stale: z.boolean(),
  })
  .register(z.globalRegistry, {
    id: 'HeadlineInstrument',
    description: 'Latest price of one instrument, its change since the previous observation and a stale flag.',
  });

const SectorHeadline = z
  .strictObject({
    sector: Sector,
    as_of: z.nullable(IsoDateSchema),
    instruments: z.array(HeadlineInstrument),
    fundamentals: z.array(HeadlineLine),
    missing: z.array(missingOf('input')),
  })
  .register(z.globalRegistry, { id: 'SectorHeadline', description: 'One sector in the compact view.' });

const CompactStaleness = z
  .strictObject({
    status: HealthStatus,
    stale_sources: z.array(z.string()),
    stale_figures: z.int().check(z.nonnegative()),
    oldest_observation: z.nullable(z.strictObject({ instrument: z.string(), as_of: IsoDateSchema, freshness_class: FreshnessClass })),
    rule: z.string(),
  })
  .register(z.globalRegistry, { id: 'CompactStaleness', description: 'Staleness in the compact view (GET /health has every source).' });

const compactEnvelope = { view: z.literal('compact'), full_view: z.string(), staleness: CompactStaleness };

const SnapshotCompactBody = z.extend(SectorHeadline, compactEnvelope).register(z.globalRegistry, {
  id: 'SnapshotCompact',
  description: 'The default, compact snapshot of one sector (view=full has every observation and balance-sheet line).',
});

const SnapshotAllCompactBody = z
  .strictObject({
    sector: z.literal('all'),
    as_of: z.nullable(IsoDateSchema),
    sectors: z.array(SectorHeadline),
    fx: z.array(HeadlineInstrument),
    ...compactEnvelope,
  })
  .register(z.globalRegistry, { id: 'SnapshotAllCompact', description: 'The default, compact all-sector snapshot (view=full has the full bodies).' });

/** What the snapshot routes answer: the compact view by default, the full one with view=full. */
const SnapshotView = z.discriminatedUnion('view', [SnapshotCompactBody, SnapshotBody]);
const SnapshotAllView = z.discriminatedUnion('view', [SnapshotAllCompactBody, SnapshotAllBody]);

export { SnapshotView, SnapshotAllView, SectorPart, HeadlineInstrument, SectorHeadline };
