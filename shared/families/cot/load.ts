/**
 * Reads and body of the COT family: managed-money positioning of one instrument's CFTC market.
 * The snapshot and decision families reuse `loadCot` (the exact body of GET /v1/cot/{code}) and
 * `COT_INSTRUMENTS` (the codes that have a CFTC contract market, in catalog order).
 */
import { COT_METHOD, COT_RANGE_YEARS, analyzeCot, type CotAnalysis, type CotPoint } from '../../analytics/cot';
import { COT_INSTRUMENTS, findCotContract, type CotContract } from '../../catalog/cot-markets';
import { findInstrument, type Instrument } from '../../catalog/instruments';
import { seriesKey } from '../../catalog/series-keys';
import type { Services } from '../../services';
import { NotFoundError, ServiceUnavailableError } from '../../errors/errors';
import type { Observation } from '../../observation/schema';
import { deriveFrom } from '../../observation/derive';
import { DATA_LAG_RULE, expectedNextAsOf, isStale } from '../../observation/staleness';
import { isoDate } from '../../dates';

/** Reports of recent net positioning the route returns. */
const RECENT_REPORTS = 13;
const WINDOW_SLACK_DAYS = 14;
const MAX_WINDOW_POINTS = 2000;

/**
 * The catalog instrument and its CFTC contract.
 * @throws NotFoundError UNKNOWN_INSTRUMENT for a code not in the catalog; NO_DATA (404) for a
 *   catalog instrument without a CFTC contract market; both list the codes that have one
 */
const requireCotInstrument = (code: string): { instrument: Instrument; contract: CotContract } => {
  const instrument = findInstrument(code);
  if (!instrument) {
    throw new NotFoundError('UNKNOWN_INSTRUMENT', `unknown instrument code ${JSON.stringify(code)}`, {
      valid: COT_INSTRUMENTS,
      hint: 'GET /v1/catalog lists every instrument; COT positioning exists for the codes under valid',
    });
  }
  const contract = findCotContract(code);
  if (!contract) {
    throw new NotFoundError('NO_DATA', `${code} has no CFTC futures market in the COT report; COT positioning is served for ${COT_INSTRUMENTS.join(', ')}`, {
      instrument: code,
      valid: COT_INSTRUMENTS,
    });
  }
  return { instrument, contract };
};

/** Stored reports of one instrument from 3 years (plus slack) before its latest through the latest, ascending, served. */
const loadCotWindow = (services: Services, code: string): Promise<Observation[]> =>
  services.reader.yearsBeforeLatest(seriesKey.cot(code), COT_RANGE_YEARS, WINDOW_SLACK_DAYS, 'weekly', MAX_WINDOW_POINTS);

const num = (o: Observation, k: string): number | null => {
  const v = o.attributes[k];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

/** The legs of a stored report; null when a leg is missing (never a NaN downstream). */
const toPoint = (o: Observation): CotPoint | null => {
  const [long, short, spreading, openInterest] = ['mm_long', 'mm_short', 'mm_spreading', 'open_interest'].map((k) => num(o, k));
  if (long == null || short == null || spreading == null || openInterest == null) return null;
  return { as_of: o.as_of, long, short, spreading, openInterest };
};

const historyNote = (a: CotAnalysis, earliest: string): string => {
  const parts: string[] = [];
  const r = a.range;
  if (!r.covered) {
    parts.push(
      `the ${COT_RANGE_YEARS}-year figures need weekly reports back to ${r.start}; ${r.reports} of ${r.expected} are stored, the earliest ${earliest}, so percentile, index, min and max are null`,
    );
  }
  if (!a.previous) parts.push(`no report within 10 days before ${a.latest.as_of} is stored, so the week-over-week change is null`);
  return parts.length ? parts.join('; ') : `${r.reports} weekly reports cover the ${COT_RANGE_YEARS}-year window`;
};

/**
 * The body of GET /v1/cot/{code}.
 * @throws NotFoundError (see requireCotInstrument); ServiceUnavailableError NO_DATA when no report is stored
 */
const loadCot = async (services: Services, code: string) => {
  const { instrument, contract } = requireCotInstrument(code);
  const stored = await loadCotWindow(services, instrument.code);
  const usable = stored.flatMap((o) => {
    const p = toPoint(o);
    return p ? [{ o, p }] : [];
  });
  const a = analyzeCot(usable.map((u) => u.p));
  if (!a) {
    throw new ServiceUnavailableError('NO_DATA', `no COT report of ${instrument.code} is stored yet`, {
      instrument: instrument.code,
      cftc_code: contract.cftcCode,
      hint: 'GET /health shows when each source last succeeded',
    });
  }
  const latest = usable.find((u) => u.p.as_of === a.latest.as_of)!.o;
  const leg = (value: number, metric: string) =>
    deriveFrom(latest, { value, unit: 'contracts', metric, quality: 'official', attributes: { cftc_code: contract.cftcCode } });
  const d = (value: number | null, unit: string, metric: string, attributes?: Record<string, number | string | null>) =>
    deriveFrom(latest, { value, unit, metric, attributes: { cftc_code: contract.cftcCode, ...attributes } });
  const r = a.range;
  return {
    instrument: instrument.code,
    meaning: instrument.meaning,
    cftc_code: contract.cftcCode,
    market: typeof latest.attributes.market === 'string' ? latest.attributes.market : null,
    report: 'CFTC Commitments of Traders, disaggregated futures-only: Tuesday positions, released Fridays 15:30 ET',
    as_of: latest.as_of,
    stale: isStale(latest.as_of, 'weekly', isoDate(services.now()), false),
    expected_next_as_of: expectedNextAsOf(latest.as_of, 'weekly')!,
    method: { ...COT_METHOD, stale: DATA_LAG_RULE },
    managed_money: {
      long: leg(a.latest.long, 'mm_long'),
      short: leg(a.latest.short, 'mm_short'),
      spreading: leg(a.latest.spreading, 'mm_spreading'),
      open_interest: leg(a.latest.openInterest, 'open_interest'),
      // The stored report itself: value = net, every leg in its attributes.
      net: latest,
      net_pct_oi: d(a.netPctOi, '%', 'net_pct_open_interest'),
      net_change_wow: d(a.netChange, 'contracts', 'net_week_over_week_change', { compared_with_as_of: a.previous?.as_of ?? null }),
    },
    range_3y: {
      percentile: d(r.percentile, 'percentile', 'net_percentile_3y', { window_start: r.start }),
      index: d(r.index, 'index 0-100', 'net_range_index_3y', { window_start: r.start }),
      min: d(r.min?.net ?? null, 'contracts', 'net_min_3y', { min_as_of: r.min?.as_of ?? null }),
      max: d(r.max?.net ?? null, 'contracts', 'net_max_3y', { max_as_of: r.max?.as_of ?? null }),
    },
    history: {
      years_required: COT_RANGE_YEARS,
      window_start: r.start,
      window_end: r.end,
      reports_in_window: r.reports,
      reports_expected: r.expected,
      covered: r.covered,
      note: historyNote(a, usable[0]!.p.as_of),
    },
    recent: usable.slice(-RECENT_REPORTS).map((u) => u.o),
  };
};

export { loadCot, loadCotWindow, COT_INSTRUMENTS };
