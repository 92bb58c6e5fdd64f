/**
 * Loads everything a sector's decision pack is computed from, reusing the other families'
 * load functions (price windows, the inventory bundle, COT positioning, spreads), and lists
 * every input it could not get. The pack itself is pure (shared/analytics/decision.ts).
 */
import type { CotInput, MissingInput, SectorInputs } from '../../analytics/decision';
import { INVENTORY_INSTRUMENTS } from '../../analytics/decision';
import { sameDateYearsBefore } from '../../analytics/inventory';
import type { SpreadId } from '../../analytics/spreads';
import { NOT_LIVE, instrumentsOf, type Sector } from '../../catalog/instruments';
import type { Services } from '../../services';
import type { Observation } from '../../observation/schema';
import { COT_INSTRUMENTS, loadCot, loadCotWindow } from '../cot/load';
import { loadInventoryBundle, loadInventoryWindow } from '../inventory/load';
import { loadLatest, loadWindow, nothingStored } from '../price/load';
import { orMissing } from '../snapshot/sector';
import { loadSpread, loadSpreadHistory } from '../spreads/load';

/** Spreads whose level vs history feeds each sector's pack. */
const SECTOR_SPREADS: Readonly<Record<Sector, readonly SpreadId[]>> = Object.freeze({
  energy: ['crack', 'basis'],
  metals: [],
  ags: ['crush'],
});

const oneYearBefore = (date: string) => sameDateYearsBefore(date, 1);

/** The price windows (one year ending at each instrument's latest) of a sector, catalog order. */
const loadPrices = async (services: Services, sector: Sector, missing: MissingInput[]) => {
  // Read in parallel, then report in catalog order so the pack never depends on timing.
  const results = await Promise.all(
    instrumentsOf(sector).map(async (i) => {
      if (!i.sourceId) return { code: i.code, missing: `not live: ${NOT_LIVE[i.code] ?? 'no source serves it'}` };
      const latest = await loadLatest(services, i.code);
      if (!latest) return { code: i.code, missing: nothingStored(services, i.code) };
      const { observations } = await loadWindow(services, i.code, oneYearBefore(latest.as_of), latest.as_of);
      return { code: i.code, window: observations };
    }),
  );
  for (const r of results) if (r.missing) missing.push({ input: `price:${r.code}`, reason: r.missing });
  return results.flatMap((r) => (r.window ? [{ code: r.code, window: r.window }] : []));
};

/** Energy: each inventory series' latest level and surprise, plus the windows they came from. */
const loadInventory = async (services: Services, missing: MissingInput[], read: Observation[]) => {
  const bundle = await orMissing('inventory', missing, () => loadInventoryBundle(services));
  if (!bundle) return [];
  const used = bundle.series.filter((s) => INVENTORY_INSTRUMENTS[s.key]);
  for (const s of used) {
    if (s.status === 'no_data') missing.push({ input: `inventory:${s.key}`, reason: s.reason });
    read.push(...(await loadInventoryWindow(services, s.key)));
    if (s.surprise) read.push(s.surprise);
  }
  return used.map((s) => ({ key: s.key, latest: s.latest ?? null, surprise: s.surprise ?? null }));
};

/** Managed-money positioning of the sector's instruments that have a CFTC market. */
const loadPositioning = async (services: Services, sector: Sector, missing: MissingInput[], read: Observation[]) => {
  const codes = instrumentsOf(sector)
    .map((i) => i.code)
    .filter((c) => COT_INSTRUMENTS.includes(c));
  const out: Array<{ code: string; cot: CotInput }> = [];
  for (const code of codes) {
    const body = await orMissing(`cot:${code}`, missing, () => loadCot(services, code));
    if (!body) continue;
    const percentile = body.range_3y.percentile;
    read.push(...(await loadCotWindow(services, code)));
    if (percentile) read.push(percentile);
    out.push({
      code,
      cot: { percentile: percentile?.value ?? null, inputs: [body.managed_money.net, ...(percentile ? [percentile] : [])] },
    });
  }
  return out;
};

/**
 * The sector's spreads on `today`: latest value and one year of history on the legs' shared dates;
 * a spread whose legs share no date within their cadence is stale (listed, no value).
 */
const loadSpreads = async (services: Services, sector: Sector, today: string, missing: MissingInput[], read: Observation[]) => {
  const out: SectorInputs['spreads'][number][] = [];
  for (const id of SECTOR_SPREADS[sector]) {
    const s = await loadSpread(services, id, today);
    if (!s.ok && !s.stale) {
      missing.push({ input: `spread:${s.def.instrument}`, reason: s.missing.map((m) => m.reason).join('; ') });
      continue;
    }
    read.push(...s.legs.map((l) => l.observation));
    if (!s.ok) {
      out.push({ instrument: s.def.instrument, stale: s.reason });
      continue;
    }
    const h = await loadSpreadHistory(services, id, oneYearBefore(s.spread.as_of), s.spread.as_of);
    read.push(...Object.values(h.legs).flat());
    out.push({ instrument: s.def.instrument, latest: s.spread, history: h.points });
  }
  return out;
};

/**
 * Everything one sector's pack reads; `read` lists every observation, for the digest.
 * @param today YYYY-MM-DD, the day the pack is judged on (the spreads' alignment included)
 */
const loadSectorInputs = async (services: Services, sector: Sector, today: string): Promise<SectorInputs> => {
  const missing: MissingInput[] = [];
  const read: Observation[] = [];
  const prices = await loadPrices(services, sector, missing);
  read.push(...prices.flatMap((p) => p.window));
  const inventory = sector === 'energy' ? await loadInventory(services, missing, read) : [];
  const cot = await loadPositioning(services, sector, missing, read);
  const spreads = await loadSpreads(services, sector, today, missing, read);
  return { sector, prices, inventory, cot, spreads, read, missing };
};

export { loadSectorInputs };
