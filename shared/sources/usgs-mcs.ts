/**
 * USGS Mineral Commodity Summaries (MCS) data release, "Commodities Data" long-format CSV
 * (Windows-1252, CRLF; fixtures/usgs/SOURCE.md). For each metal: U.S. production, world
 * production, U.S. and world reserves, the annual price USGS publishes, and U.S. net import
 * reliance, stored as USGS#<commodity>#<statistic> with as_of = <year>-12-31.
 *
 * Choices:
 * - freshness_class "monthly": the spec's enum has no annual class; monthly is the slowest one
 *   and so the closest honest label. `attributes.frequency` says "annual" on every item, and
 *   "decree" (an administered price) would be wrong.
 * - Values stay in the units USGS publishes (thousand metric tons, cents per pound, percent,
 *   kilograms …), `official`; nothing is converted.
 * - Special values: `W` (withheld), `NA` and `E` (net exporter: net import reliance is not a
 *   number) give no observation but a note (what was printed and why there is no number, served
 *   in `statistics_without_data`); `—` is zero; `s` (less than ½ unit) is an upper bound, < 0.5,
 *   unless the row's note says a meaningful figure cannot be calculated (gold's net import
 *   reliance 2025: "... preclude calculation of a meaningful net import reliance"): then it is no
 *   value, with that note. Bounds `>99`, `<1`, `>140,000,000` give the bound with
 *   `attributes.bound` = "greater than"/"less than", and stay bounds in every view.
 *   Any other text fails the run. The original text is kept in `attributes.published_value`.
 * - The last year of each edition is an estimate (`Notes` starts "Estimated."):
 *   `attributes.estimated` = "yes".
 * - Platinum and palladium reserves are published only for all platinum-group metals together;
 *   they are stored as `us_pgm_reserves` / `world_pgm_reserves` under both metals so the name
 *   says what they are.
 * - Palladium's price is the Engelhard unfabricated-metal annual average (S&P Global Platts),
 *   an annual figure: it is served on /v1/fundamentals/usgs, never as PRICE#PA.
 */
import { parse } from 'csv-parse/sync';
import type { AttributeValue } from '../observation/schema';
import type { SeriesItem, SeriesNote } from '../store/observation-store';
import { seriesKey } from '../catalog/series-keys';
import { usgsLabel } from '../catalog/fundamentals';
import { fetchPayload, makeObservation, payloadText, readSamples } from './common';
import { findSource } from './registry';
import { SourceFormatError, type LiveContext, type NormalizeContext, type Payload, type SourceAdapter } from './types';
import { isoDate } from '../dates';
import { endOfDay } from '../calendar';

type SectionKind = 'salient' | 'world';

interface UsgsStatistic {
  /** Slug in the series key, e.g. us_production; its label is the catalog's (catalog/fundamentals.ts). */
  readonly statistic: string;
  readonly section: SectionKind;
  readonly country: 'United States' | 'World total';
  /** `Statistics` column. */
  readonly statistics: string;
  /** `Statistics_detail` column. */
  readonly detail: RegExp;
  /** `Commodity` column when it differs from the metal's (PGM reserves). */
  readonly commodity?: string;
}

interface UsgsCommodity {
  /** Slug of the route's `commodity` parameter and of the series key. */
  readonly slug: string;
  /** `MCS chapter` column. */
  readonly chapter: string;
  /** `Commodity` column. */
  readonly commodity: string;
  readonly statistics: readonly UsgsStatistic[];
}

const us = (statistic: string, statistics: string, detail: RegExp, section: SectionKind = 'salient'): UsgsStatistic =>
  Object.freeze({ statistic, section, country: 'United States', statistics, detail });
const world = (statistic: string, statistics: string, detail: RegExp): UsgsStatistic =>
  Object.freeze({ statistic, section: 'world', country: 'World total', statistics, detail });

/** The usual five: mine production (U.S., world), reserves (U.S., world), net import reliance. */
const mine = (usDetail: RegExp, nir: RegExp = /^Net import reliance as a percentage of apparent consumption$/): UsgsStatistic[] => [
  us('us_production', 'Production', usDetail),
  world('world_production', 'Production', /^Mine production: rounded$/),
  us('us_reserves', 'Reserves', /^Reserves$/, 'world'),
  world('world_reserves', 'Reserves', /^Reserves: rounded$/),
  us('net_import_reliance', 'Net import reliance', nir),
];

const pgm = (metal: 'Platinum' | 'Palladium'): UsgsStatistic[] => [
  us('us_production', 'Production', new RegExp(`^Mine production: ${metal}$`)),
  world('world_production', 'Production', new RegExp(`^Mine production: ${metal}, rounded$`)),
  { ...us('us_pgm_reserves', 'Reserves', /^PGM reserves$/, 'world'), commodity: 'Platinum-Group Metals' },
  { ...world('world_pgm_reserves', 'Reserves', /^PGM reserves: rounded$/), commodity: 'Platinum-Group Metals' },
  us('price', 'Price', new RegExp(`^Price, dollars per troy ounce: ${metal}$`)),
  us('net_import_reliance', 'Net import reliance', new RegExp(`^Net import reliance as a percentage of apparent consumption: ${metal}$`)),
];

const USGS_COMMODITIES: readonly UsgsCommodity[] = Object.freeze([
  {
    slug: 'copper',
    chapter: 'COPPER',
    commodity: 'Copper',
    statistics: [
      ...mine(/^Production: Mine, recoverable$/),
      us('price', 'Price', /^Price, annual average, cents per pound: COMEX, high-grade, first position$/),
    ],
  },
  {
    slug: 'aluminum',
    chapter: 'ALUMINUM',
    commodity: 'Aluminum',
    // Aluminum has no reserves (they are bauxite's); its world figure is smelter production.
    statistics: [
      us('us_production', 'Production', /^Production: Primary$/),
      world('world_production', 'Production', /^Smelter production: rounded$/),
      us('price', 'Price', /^Price, ingot, average U\.S\. market \(spot\), cents per pound$/),
      us('net_import_reliance', 'Net import reliance', /^Net import reliance as a percentage of apparent consumption$/),
    ],
  },
  {
    slug: 'nickel',
    chapter: 'NICKEL',
    commodity: 'Nickel',
    statistics: [
      ...mine(/^Production: Mine$/, /^Net import reliance as a percentage of total apparent consumption$/),
      us('price', 'Price', /^Price, average annual, London Metal Exchange \(LME\), cash: Dollars per metric ton$/),
    ],
  },
  {
    slug: 'zinc',
    chapter: 'ZINC',
    commodity: 'Zinc',
    statistics: [
      ...mine(/^Production: Mine, zinc in concentrates$/, /^Net import reliance as a percentage of apparent consumption: Refined zinc$/),
      us('price', 'Price', /^Price, average, cents per pound: North American$/),
    ],
  },
  {
    slug: 'iron_ore',
    chapter: 'IRON ORE',
    commodity: 'Iron Ore',
    statistics: [
      us('us_production', 'Production', /^Production: Iron ore$/),
      world('world_production', 'Production', /^Mine production: Usable ore, rounded$/),
      us('us_reserves', 'Reserves', /^Reserves \(million metric tons\): Crude ore$/, 'world'),
      world('world_reserves', 'Reserves', /^Reserves \(million metric tons\): Crude ore, rounded$/),
      us('price', 'Price', /^Price, average unit value reported by mines, dollars per metric ton$/),
      us('net_import_reliance', 'Net import reliance', /^Net import reliance as a percentage of apparent consumption$/),
    ],
  },
  {
    slug: 'gold',
    chapter: 'GOLD',
    commodity: 'Gold',
    statistics: [
      ...mine(/^Production: Mine$/, /^Net import reliance as a percentage of reported consumption$/),
      us('price', 'Price', /^Price, dollars per troy ounce$/),
    ],
  },
  {
    slug: 'silver',
    chapter: 'SILVER',
    commodity: 'Silver',
    statistics: [...mine(/^Production: Mine$/), us('price', 'Price', /^Price, bullion, average, dollars per troy ounce$/)],
  },
  { slug: 'platinum', chapter: 'PLATINUM-GROUP METALS', commodity: 'Platinum', statistics: pgm('Platinum') },
  { slug: 'palladium', chapter: 'PLATINUM-GROUP METALS', commodity: 'Palladium', statistics: pgm('Palladium') },
] satisfies UsgsCommodity[]);

/** Editions this project knows: publication day and the data release (DOI, CSV file). */
const EDITIONS: Readonly<Record<number, { publishedOn: string; doi: string; csv: string }>> = Object.freeze({
  2026: {
    // "Publication first posted 2026-02-06" (ScienceBase item 69837e43b66b01367d7ec7c7).
    publishedOn: '2026-02-06',
    doi: 'https://doi.org/10.5066/P1WKQ63T',
    csv: 'https://www.sciencebase.gov/catalog/file/get/69837e43b66b01367d7ec7c7?f=__disk__d3%2Fac%2F84%2Fd3ac8466552946c5e8caa2c2c6338d9e1aff655d',
  },
});

const REQUIRED_COLUMNS = ['MCS chapter', 'Section', 'Commodity', 'Country', 'Statistics', 'Statistics_detail', 'Unit', 'Year', 'Value', 'Notes'];

type UsgsRow = Record<string, string>;

/** A published value: the number to store (null = none) and what to say about it. */
interface UsgsValue {
  value: number | null;
  bound: 'greater than' | 'less than' | null;
  note: string | null;
}

/** The sentence of a row's Notes that says no meaningful figure can be calculated, or null. */
const noFigureNote = (notes: string): string | null =>
  notes
    .split(/\s+--\s+/)
    .map((n) => n.trim())
    .find((n) => /preclude[sd]? (the )?calculation|cannot be calculated|not meaningful/i.test(n)) ?? null;

/**
 * Reads one `Value` cell.
 * @param notes the row's Notes: "s" with a note that the figure cannot be calculated is no value
 * @throws SourceFormatError on text that is none of the documented tokens
 */
const parseUsgsValue = (raw: string, where: string, notes = ''): UsgsValue => {
  const v = raw.trim();
  if (v === 'W') return { value: null, bound: null, note: 'withheld to avoid disclosing company proprietary data' };
  if (v === 'NA') return { value: null, bound: null, note: 'not available' };
  if (v === 'E') return { value: null, bound: null, note: 'net exporter' };
  if (v === '\u2014') return { value: 0, bound: null, note: 'zero' };
  if (v === 's') {
    // "s" is less than half a unit, an upper bound (<0.5), unless USGS says no meaningful figure exists.
    const none = noFigureNote(notes);
    return none ? { value: null, bound: null, note: none } : { value: 0.5, bound: 'less than', note: 'less than ½ unit' };
  }
  const m = /^([<>])?\s*(-?[\d,]*\.?\d+)$/.exec(v);
  if (!m) throw new SourceFormatError(`${where}: value ${JSON.stringify(raw)} is not a number or a documented USGS token (W, NA, E, —, s, >n, <n)`);
  const value = Number(m[2]!.replace(/,/g, ''));
  if (!Number.isFinite(value)) throw new SourceFormatError(`${where}: value ${JSON.stringify(raw)} is not a number`);
  return { value, bound: m[1] === '>' ? 'greater than' : m[1] === '<' ? 'less than' : null, note: null };
};

/**
 * Parses the long-format CSV (already decoded from Windows-1252).
 * @throws SourceFormatError on a missing column or no data rows
 */
const parseUsgsCsv = (text: string, name: string): UsgsRow[] => {
  let rows: UsgsRow[];
  try {
    rows = parse(text, { columns: true, skip_empty_lines: true, bom: true }) as UsgsRow[];
  } catch (err) {
    throw new SourceFormatError(`${name}: not a readable CSV (${(err as Error).message})`, { cause: err });
  }
  if (rows.length === 0) throw new SourceFormatError(`${name}: no data rows`);
  const header = Object.keys(rows[0]!);
  const missing = REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length) throw new SourceFormatError(`${name}: missing column(s) ${missing.join(', ')} (header: ${header.join(', ')})`);
  return rows;
};

const sectionKind = (section: string): SectionKind | null =>
  section.startsWith('Salient Statistics') ? 'salient' : section.startsWith('World') ? 'world' : null;

interface UsgsPoint {
  commodity: UsgsCommodity;
  statistic: UsgsStatistic;
  year: number;
  unit: string;
  detail: string;
  notes: string;
  raw: string;
  parsed: UsgsValue;
}

/**
 * Selects the served statistics from the rows of every chapter present in the file.
 * @throws SourceFormatError when a chapter is present but one of its statistics is not (a renamed
 *   field), a statistic appears twice for a year, or no known chapter is present at all
 */
const selectPoints = (rows: UsgsRow[], name: string): UsgsPoint[] => {
  const chapters = new Set(rows.map((r) => r['MCS chapter']!.trim()));
  const present = USGS_COMMODITIES.filter((c) => chapters.has(c.chapter));
  if (present.length === 0) {
    throw new SourceFormatError(`${name}: none of the chapters ${[...new Set(USGS_COMMODITIES.map((c) => c.chapter))].join(', ')} is in the file`);
  }
  const points: UsgsPoint[] = [];
  for (const commodity of present) {
    for (const statistic of commodity.statistics) {
      const matches = rows.filter(
        (r) =>
          r['MCS chapter']!.trim() === commodity.chapter &&
          r.Commodity!.trim() === (statistic.commodity ?? commodity.commodity) &&
          sectionKind(r.Section!.trim()) === statistic.section &&
          r.Country!.trim() === statistic.country &&
          r.Statistics!.trim() === statistic.statistics &&
          statistic.detail.test(r.Statistics_detail!.trim()),
      );
      if (matches.length === 0) {
        throw new SourceFormatError(
          `${name}: ${commodity.chapter} has no row for ${statistic.statistic} (${statistic.statistics}: ${statistic.detail.source}); renamed?`,
        );
      }
      const years = new Set<number>();
      for (const r of matches) {
        const where = `${name}: ${commodity.chapter} ${statistic.statistic} ${r.Year}`;
        if (!/^\d{4}$/.test(r.Year!.trim())) throw new SourceFormatError(`${where}: year is not YYYY`);
        const year = Number(r.Year);
        if (years.has(year)) throw new SourceFormatError(`${where}: two rows for the same year`);
        years.add(year);
        points.push({
          commodity,
          statistic,
          year,
          unit: r.Unit!.trim(),
          detail: r.Statistics_detail!.trim(),
          notes: (r.Notes ?? '').trim(),
          raw: r.Value!.trim(),
          parsed: parseUsgsValue(r.Value!, where, r.Notes ?? ''),
        });
      }
    }
  }
  return points;
};

const def = findSource('usgs-mcs')!;

/** The edition of a release's points (the year after its newest data year: MCS 2026 covers 2021-2025e) and when it came out. */
const editionOf = (points: ReadonlyArray<{ year: number }>) => {
  const edition = Math.max(...points.map((p) => p.year)) + 1;
  const known = EDITIONS[edition];
  // USGS dates the release but states no time: the end of that day (Eastern), never 00:00 UTC.
  return { edition, known, publishedAt: known ? endOfDay(known.publishedOn, 'America/New_York') : null };
};

/** Pure: CSV payload -> USGS#<commodity>#<statistic> items. */
const toItems = (payload: Payload, ctx: NormalizeContext): SeriesItem[] => {
  const rows = parseUsgsCsv(payloadText(payload, 'windows-1252'), payload.name);
  const points = selectPoints(rows, payload.name);
  const { edition, known, publishedAt } = editionOf(points);
  return points.flatMap((p) => {
    if (p.parsed.value === null) return [];
    const attributes: Record<string, AttributeValue> = {
      frequency: 'annual',
      year: p.year,
      edition: `MCS ${edition}`,
      statistic: p.statistic.statistic,
      label: usgsLabel(p.commodity.slug, p.statistic.statistic),
      statistics_detail: p.detail,
      published_value: p.raw,
      estimated: /^Estimated\./.test(p.notes) ? 'yes' : 'no',
      bound: p.parsed.bound,
      value_note: p.parsed.note,
      notes: p.notes ? p.notes.slice(0, 500) : null,
    };
    return [
      {
        seriesKey: seriesKey.usgs(p.commodity.slug, p.statistic.statistic),
        observation: makeObservation(ctx, {
          instrument: `USGS:${p.commodity.slug}:${p.statistic.statistic}`,
          value: p.parsed.value,
          unit: p.unit,
          as_of: `${p.year}-12-31`,
          freshness_class: 'monthly',
          series_id: `MCS${edition} ${p.commodity.chapter}: ${p.detail}`,
          url: known?.doi,
          retrievedAt: payload.retrievedAt,
          published_at: publishedAt,
          // The day is the data release's own (its metadata), the time the end of that day.
          ...(known ? { published_at_estimated: false } : {}),
          attributes,
        }),
      },
    ];
  });
};

/** Pure: the figures of a CSV payload that have no value, with what USGS printed, why, and when its edition came out. */
const toNotes = (payload: Payload): SeriesNote[] => {
  const points = selectPoints(parseUsgsCsv(payloadText(payload, 'windows-1252'), payload.name), payload.name);
  const { publishedAt } = editionOf(points);
  return points.flatMap((p) =>
    p.parsed.value === null
      ? [
          {
            seriesKey: seriesKey.usgs(p.commodity.slug, p.statistic.statistic),
            as_of: `${p.year}-12-31`,
            published_value: p.raw,
            note: p.parsed.note!,
            unit: p.unit,
            published_at: publishedAt,
          },
        ]
      : [],
  );
};

/** The newest edition this project knows that is out by `now` (new editions are added to EDITIONS). */
const currentEdition = (now: Date): number => {
  const years = Object.keys(EDITIONS)
    .map(Number)
    .sort((a, b) => b - a);
  return years.find((y) => `${EDITIONS[y]!.publishedOn}` <= isoDate(now)) ?? years.at(-1)!;
};

const live = async (ctx: LiveContext): Promise<Payload[]> => {
  const edition = currentEdition(ctx.now);
  const p = await fetchPayload(ctx, EDITIONS[edition]!.csv, `MCS${edition}_Commodities_Data.csv`);
  // The live file holds every chapter; a missing one means the release changed shape.
  const chapters = new Set(parseUsgsCsv(payloadText(p, 'windows-1252'), p.name).map((r) => r['MCS chapter']!.trim()));
  const absent = [...new Set(USGS_COMMODITIES.map((c) => c.chapter))].filter((c) => !chapters.has(c));
  if (absent.length) throw new SourceFormatError(`${p.name}: chapter(s) ${absent.join(', ')} missing from the data release`);
  ctx.onProgress?.(1, 1);
  return [p];
};

/** The sample's figures are those of MCS 2026 (first posted 2026-02-06). */
const SAMPLES_RECORDED_AT = '2026-02-06T17:00:00.000Z';

const usgsMcs: SourceAdapter = {
  def,
  live,
  samples: () => readSamples(def.id, ['MCS2026_Commodities_Data.csv'], SAMPLES_RECORDED_AT),
  toItems,
  toNotes,
};

export { usgsMcs, parseUsgsValue, currentEdition, USGS_COMMODITIES };
export type { UsgsCommodity, UsgsStatistic, UsgsValue };
