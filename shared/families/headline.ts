/**
 * Pure: the compact (default) view of a snapshot, from the full sector parts. Agents read the
 * answer into a context window, so the default is the headline figures (latest value, its change,
 * a stale flag) of every instrument and fundamental line; `view=full` keeps every observation.
 */
import type * as z from '../zod';
import type { Observation } from '../observation/schema';
import { cadenceOf, isStale } from '../observation/staleness';
import { boundOf } from '../analytics/fundamentals';
import type { HeadlineLine } from '../schemas/headline';
import type { HeadlineInstrument, SectorHeadline, SectorPart as SectorPartSchema } from '../schemas/snapshot';

type SectorPart = z.infer<typeof SectorPartSchema>;

type Instrument = z.infer<typeof HeadlineInstrument>;
type Line = z.infer<typeof HeadlineLine>;

/** What staleness is judged against: today and the sources /health reports stale. */
interface StaleContext {
  today: string;
  staleSources: ReadonlySet<string>;
  /** Source id of each instrument code. */
  sourceOf: (instrument: string) => string | undefined;
}

const round = (v: number): number => Math.round(v * 1e4) / 1e4;

/** An instrument's headline: the latest price and its change since the previous observation. */
const headlineInstrument = (latest: Observation, previous: Observation | null, ctx: StaleContext): Instrument => {
  const change = previous && latest.value !== null && previous.value !== null ? round(latest.value - previous.value) : null;
  return {
    instrument: latest.instrument,
    value: latest.value,
    unit: latest.unit,
    as_of: latest.as_of,
    change,
    change_since: change === null ? null : previous!.as_of,
    quality: latest.quality,
    derived: latest.derived,
    stale: isStale(latest.as_of, cadenceOf(latest), ctx.today, ctx.staleSources.has(ctx.sourceOf(latest.instrument) ?? '')),
  };
};

interface Compared {
  statistic: string;
  label: string;
  notes: string[];
  latest: Observation;
  change_vs_previous_report: Observation | null;
  change_vs_year_ago: Observation | null;
}

const line = (
  part: string,
  key: string,
  label: string,
  latest: Observation,
  change: { value: number | null; basis: Line['change_basis'] } | null,
  sourceStale: boolean,
  today: string,
  note: string | null = null,
): Line => ({
  part,
  key,
  label,
  value: latest.value,
  bound: boundOf(latest) as Line['bound'],
  unit: latest.unit,
  as_of: latest.as_of,
  change: change?.value ?? null,
  change_basis: change?.value !== null && change?.value !== undefined ? change.basis : null,
  quality: latest.quality,
  derived: latest.derived,
  stale: isStale(latest.as_of, cadenceOf(latest), today, sourceStale),
  note,
});

/** A figure without a value: listed with why, never dropped (nor shown as a number). */
const noValueLine = (part: string, key: string, label: string, f: { unit: string; as_of: string | null; stale: boolean; note: string }): Line => ({
  part,
  key,
  label,
  value: null,
  bound: null,
  unit: f.unit,
  as_of: f.as_of,
  change: null,
  change_basis: null,
  quality: null,
  derived: false,
  stale: f.stale,
  note: f.note,
});

/** A compared line (WASDE, crop progress, export sales, USGS): the change vs the previous report, else vs a year ago. */
const comparedLine = (part: string, prefix: string, l: Compared, sourceStale: boolean, today: string, note: string | null = null): Line => {
  const change = l.change_vs_previous_report
    ? { value: l.change_vs_previous_report.value, basis: 'previous_report' as const }
    : l.change_vs_year_ago
      ? { value: l.change_vs_year_ago.value, basis: 'year_ago' as const }
      : null;
  return line(part, `${prefix}:${l.statistic}`, `${prefix} ${l.label}`, l.latest, change, sourceStale, today, note);
};

/** The WASDE lines that carry a balance sheet's story, for the projection year. */
const WASDE_HEADLINES = new Set(['production', 'use_total', 'exports', 'ending_stocks', 'stocks_to_use']);

type FundamentalParts = SectorPart['fundamentals'];

/** The headline lines of any fundamental parts (a sector's, or one report's), in a stable order. */
const fundamentalLines = (f: FundamentalParts, staleSources: ReadonlySet<string>, today: string): Line[] => {
  const out: Line[] = [];
  for (const s of f.inventories?.series ?? []) {
    if (!s.latest) continue;
    const wow = s.week_over_week_change ? { value: s.week_over_week_change.value, basis: 'week_over_week' as const } : null;
    out.push(line('inventories', s.key, s.meaning ?? s.key, s.latest, wow, staleSources.has(s.source_id ?? ''), today));
  }
  if (f.crack && 'observation' in f.crack)
    out.push(line('crack', f.crack.instrument, f.crack.name, f.crack.observation, null, staleSources.has('eia-spot'), today));
  else if (f.crack) out.push(noValueLine('crack', f.crack.instrument, f.crack.name, { unit: f.crack.unit, as_of: null, stale: true, note: f.crack.reason }));
  for (const c of f.wasde?.commodities ?? []) {
    const projection = c.market_years.find((y) => y.market_year === c.projection_year) ?? c.market_years[0];
    for (const l of projection?.lines ?? []) {
      if (WASDE_HEADLINES.has(l.statistic))
        out.push(comparedLine('wasde', `${c.commodity} ${projection!.market_year}`, l, staleSources.has('usda-wasde'), today));
    }
  }
  for (const c of f.crop_progress?.commodities ?? []) {
    for (const l of c.statistics) out.push(comparedLine('crop_progress', c.commodity, l, staleSources.has('usda-nass-crop-progress'), today));
  }
  for (const c of f.export_sales?.commodities ?? []) {
    // A partial scope (China + Mexico only) goes with every figure, never just the full view.
    const scope = c.scope === null ? null : `scope: ${c.scope}`;
    for (const l of c.lines) out.push(comparedLine('export_sales', c.commodity, l, staleSources.has('usda-fas-esr'), today, scope));
  }
  for (const c of f.usgs?.commodities ?? []) {
    const sourceStale = staleSources.has('usgs-mcs');
    for (const l of c.statistics) out.push(comparedLine('usgs', c.commodity, l, sourceStale, today, l.notes.find((n) => n.startsWith('no value for')) ?? null));
    for (const s of c.statistics_without_data) {
      if (s.as_of === null || s.unit === null) continue;
      out.push(
        noValueLine('usgs', `${c.commodity}:${s.statistic}`, `${c.commodity} ${s.label}`, {
          unit: s.unit,
          as_of: s.as_of,
          stale: isStale(s.as_of, 'annual', today, sourceStale),
          note: s.reason,
        }),
      );
    }
  }
  return out;
};

/**
 * One sector's headline from its full part.
 * @param previous the observation before the latest, per instrument code
 */
const sectorHeadline = (part: SectorPart, previous: ReadonlyMap<string, Observation | null>, ctx: StaleContext): z.infer<typeof SectorHeadline> => ({
  sector: part.sector,
  as_of: part.as_of,
  instruments: part.instruments.observations.map((o) => headlineInstrument(o, previous.get(o.instrument) ?? null, ctx)),
  fundamentals: fundamentalLines(part.fundamentals, ctx.staleSources, ctx.today),
  missing: part.missing,
});

export { sectorHeadline, headlineInstrument, fundamentalLines };
export type { StaleContext, FundamentalParts };
