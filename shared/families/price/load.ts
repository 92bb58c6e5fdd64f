/**
 * Reads of the price family, reused by spreads, snapshots and decision packs: the latest
 * observation of an instrument and a window of its history, both through the read cache so
 * provenance tells the truth.
 */
import { INSTRUMENTS, NOT_LIVE, findInstrument, type Instrument } from '../../catalog/instruments';
import { seriesKey } from '../../catalog/series-keys';
import { NotFoundError, ServiceUnavailableError } from '../../errors/errors';
import type { Observation } from '../../observation/schema';
import type { Services } from '../../services';
import type { ServedWindow } from '../../store/observation-reader';

/** Most native points one history window may read (about 40 years of daily data). */
const MAX_WINDOW_POINTS = 15_000;

/** The catalog entry of a code, or a 404 that says where to look. */
const requireInstrument = (code: string): Instrument => {
  const instrument = findInstrument(code);
  if (!instrument) {
    throw new NotFoundError('UNKNOWN_INSTRUMENT', `unknown instrument code ${JSON.stringify(code)}`, {
      valid: INSTRUMENTS.map((i) => i.code),
      hint: 'GET /v1/catalog lists every instrument',
    });
  }
  return instrument;
};

/** The latest stored observation of a code as served, or null when nothing is stored yet. */
const loadLatest = async ({ reader }: Services, code: string): Promise<Observation | null> =>
  reader.latest(seriesKey.price(code), requireInstrument(code).freshness);

/** A catalog instrument that no source serves is a 404 that says why (e.g. PA). */
const requireLive = (code: string): Instrument => {
  const instrument = requireInstrument(code);
  if (!instrument.sourceId) {
    throw new NotFoundError('NO_DATA', `${code} is listed but not live: ${NOT_LIVE[code] ?? 'no source serves it'}`, {
      instrument: code,
      live: false,
    });
  }
  return instrument;
};

/** Like loadLatest, but a missing value is a 503 NO_DATA naming the instrument (404 when not live). */
const requireLatest = async (services: Services, code: string): Promise<Observation> => {
  requireLive(code);
  const obs = await loadLatest(services, code);
  if (!obs) {
    throw new ServiceUnavailableError('NO_DATA', `no observation of ${code} is stored yet`, {
      instrument: code,
      hint: 'GET /health shows when each source last succeeded',
    });
  }
  return obs;
};

/** Why a live code has no latest figure: nothing stored yet, or (at a past instant) nothing published by then. */
const nothingStored = (services: Services, code: string): string =>
  services.asKnownAt ? `no observation of ${code} was published by ${services.asKnownAt}` : `no observation of ${code} is stored yet`;

/** Every stored observation of a code in [start, end], ascending, as served. */
const loadWindow = async ({ reader }: Services, code: string, start: string, end: string): Promise<ServedWindow> =>
  reader.window(seriesKey.price(code), start, end, requireInstrument(code).freshness, MAX_WINDOW_POINTS);

export { requireLive, loadLatest, requireLatest, loadWindow, nothingStored };
