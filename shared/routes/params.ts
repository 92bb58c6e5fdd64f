/**
 * Zod schemas for path and query parameters, shared by the route table (validation, OpenAPI,
 * MCP tool inputs). Format is checked first (400 INVALID_PARAMETER); then a parameter that names
 * a catalog entry is checked against the catalog (404 with the valid values), so both answers
 * come before any payment is asked for.
 *
 * Each schema is built in a call marked pure, so a Lambda bundle keeps only those its family's
 * routes use (about 2 KB less in every data bundle).
 */
import * as z from '../zod';
import { FUTURES_ROOTS, FX_PAIRS, INSTRUMENTS, NOT_LIVE, SECTORS } from '../catalog/instruments';
import { COT_INSTRUMENTS } from '../catalog/cot-markets';
import { INVENTORY_KEYS } from '../catalog/inventory';
import { isoDate } from '../dates';

/** Codes are case-insensitive: `cl` is served as `CL` (documented in the README). */
const CodeParam = /* @__PURE__ */ (() =>
  z.pipe(
    z.pipe(
      z.string().check(z.maxLength(32, 'code is at most 32 characters')),
      z.transform((s: string) => s.trim().toUpperCase()),
    ),
    z.string().check(z.regex(/^[A-Z][A-Z0-9]{0,15}$/, 'code must be letters and digits, e.g. CL')),
  ))();

/** Lower-case slugs (sectors, inventory keys); upper-case input is folded. */
const SlugParam = /* @__PURE__ */ (() =>
  z.pipe(
    z.pipe(
      z.string().check(z.maxLength(32, 'at most 32 characters')),
      z.transform((s: string) => s.trim().toLowerCase()),
    ),
    z.string().check(z.regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a lower-case key such as energy or crude_ex_spr')),
  ))();

/** Most codes one bundle call may ask for. */
const MAX_BUNDLE_CODES = 30;

const CodesQuery = /* @__PURE__ */ (() =>
  z.pipe(
    z.pipe(
      z.string({ error: 'codes is required: a comma-separated list such as CL,BZ,NG' }).check(z.maxLength(600, 'codes is too long')),
      z.transform((s: string) => [
        ...new Set(
          s
            .split(',')
            .map((c) => c.trim().toUpperCase())
            .filter(Boolean),
        ),
      ]),
    ),
    z
      .array(z.string().check(z.regex(/^[A-Z][A-Z0-9]{0,15}$/, 'each code must be letters and digits')))
      .check(z.minLength(1, 'codes must name at least one instrument'), z.maxLength(MAX_BUNDLE_CODES, `at most ${MAX_BUNDLE_CODES} distinct codes per call`)),
  ))();

const isCalendarDate = (s: string): boolean => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && isoDate(d) === s;
};

/** A real calendar date in YYYY-MM-DD form (2025-02-30 is refused). */
const DateQuery = /* @__PURE__ */ (() =>
  z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date as YYYY-MM-DD'), z.refine(isCalendarDate, 'not a calendar date')))();

/** What `as_known_at` accepts, as every refusal states it. */
const AS_KNOWN_AT_FORMAT = 'an ISO 8601 instant with seconds and a UTC offset, e.g. 2026-02-11T15:29:00Z or 2026-02-11T10:29:00-05:00';
const INSTANT = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

/**
 * `as_known_at`: answer as the data was published at this instant (shared/store/point-in-time-store.ts),
 * normalised to UTC (`2026-02-11T15:29:00.000Z`). An instant in the future is refused here, by the
 * process clock, before any payment; the handler checks it again against the service's clock.
 */
const AsKnownAtQuery = /* @__PURE__ */ (() =>
  z
    .pipe(
      z.string().check(
        z.superRefine((s: string, ctx) => {
          const m = INSTANT.exec(s);
          if (!m || !isCalendarDate(m[1]!)) ctx.addIssue({ code: 'custom', message: `as_known_at must be ${AS_KNOWN_AT_FORMAT}` });
          else if (Date.parse(s) > Date.now()) ctx.addIssue({ code: 'custom', message: `as_known_at ${s} is in the future: nothing is known there yet` });
        }),
      ),
      z.transform((s: string) => new Date(s).toISOString()),
    )
    .check(z.meta({ format: 'date-time', description: 'Answer as published at this instant, e.g. 2026-02-11T15:29:00Z' })))();

/** The query parameter every paid data route takes. */
const AS_KNOWN_AT = /* @__PURE__ */ (() => ({ as_known_at: z.optional(AsKnownAtQuery) }))();

const HISTORY_FREQUENCIES = ['native', 'weekly', 'monthly'] as const;
const HISTORY_MAX_LIMIT = 1000;
const HISTORY_DEFAULT_LIMIT = 365;

const HistoryQuery = /* @__PURE__ */ (() =>
  z
    .object({
      start: z.optional(DateQuery),
      end: z.optional(DateQuery),
      limit: z._default(
        z.coerce
          .number({ error: 'limit must be a whole number' })
          .check(
            z.int('limit must be a whole number'),
            z.minimum(1, 'limit must be at least 1'),
            z.maximum(HISTORY_MAX_LIMIT, `limit is at most ${HISTORY_MAX_LIMIT}`),
          ),
        HISTORY_DEFAULT_LIMIT,
      ),
      frequency: z._default(z.enum(HISTORY_FREQUENCIES), 'native'),
      cursor: z.optional(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'cursor is the `next` value of a previous page'))),
      ...AS_KNOWN_AT,
    })
    .check(z.refine((q) => !q.start || !q.end || q.start <= q.end, { message: 'start must not be after end', path: ['start'] })))();

const NoParams = /* @__PURE__ */ (() => z.object({}))();

/** Codes of the 404 a catalog parameter answers with. */
type NotFoundCode = 'UNKNOWN_INSTRUMENT' | 'UNKNOWN_SERIES' | 'UNKNOWN_SECTOR' | 'UNKNOWN_ROOT' | 'NO_DATA';

/** What a catalog check puts on its zod issue (`params.notFound`); the route layer turns it into a 404. */
interface NotFoundIssue {
  code: NotFoundCode;
  details: Record<string, unknown>;
}

interface CatalogCheck {
  /** Every value the catalog lists for this parameter (JSON Schema `enum`). */
  valid: readonly string[];
  code: NotFoundCode;
  /** What the value names, for the message: "instrument code", "sector" … */
  what: string;
  /** Listed values that this route does not serve, with why: 404 NO_DATA instead of "unknown". */
  notLive?: Readonly<Record<string, string>>;
  /** The message of such a 404 (default: "<value> is listed but not live: <why>"). */
  notLiveMessage?: (value: string, why: string) => string;
  hint?: string;
}

/**
 * A path parameter that names a catalog entry: format first (400), then membership (404).
 * @example catalogParam(CodeParam, { valid: ['CL'], code: 'UNKNOWN_INSTRUMENT', what: 'instrument code' })
 */
const catalogParam = (format: z.ZodMiniType<string, string>, check: CatalogCheck) =>
  format
    .check(
      z.superRefine((value: string, ctx) => {
        const listed = check.valid.includes(value);
        const reason = check.notLive?.[value];
        if (listed && !reason) return;
        const notFound: NotFoundIssue = reason
          ? { code: 'NO_DATA', details: { [check.what.split(' ')[0]!]: value, live: false, reason, valid: check.valid } }
          : { code: check.code, details: { valid: check.valid, ...(check.hint ? { hint: check.hint } : {}) } };
        ctx.addIssue({
          code: 'custom',
          message: reason
            ? (check.notLiveMessage ?? ((v, why) => `${v} is listed but not live: ${why}`))(value, reason)
            : `unknown ${check.what} ${JSON.stringify(value)}`,
          params: { notFound },
        });
      }),
    )
    .check(z.meta({ enum: [...check.valid] }));

const INSTRUMENT_CODES = /* @__PURE__ */ (() => INSTRUMENTS.map((i) => i.code))();

/** An instrument of the catalog; listed-but-not-live codes (PA) answer 404 NO_DATA. */
const InstrumentParam = /* @__PURE__ */ (() =>
  catalogParam(CodeParam, {
    valid: INSTRUMENT_CODES,
    code: 'UNKNOWN_INSTRUMENT',
    what: 'instrument code',
    notLive: NOT_LIVE,
    hint: 'GET /v1/catalog lists every instrument',
  }))();
/** An instrument with a CFTC contract market; other catalog instruments answer 404 NO_DATA. */
const CotCodeParam = /* @__PURE__ */ (() =>
  catalogParam(CodeParam, {
    valid: COT_INSTRUMENTS,
    code: 'UNKNOWN_INSTRUMENT',
    what: 'instrument code',
    notLive: Object.fromEntries(INSTRUMENT_CODES.filter((c) => !COT_INSTRUMENTS.includes(c)).map((c) => [c, 'no CFTC futures market in the COT report'])),
    notLiveMessage: (v) => `${v} has no CFTC futures market in the COT report; COT positioning is served for ${COT_INSTRUMENTS.join(', ')}`,
    hint: 'GET /v1/catalog lists every instrument; COT positioning exists for the codes under valid',
  }))();
const FxPairParam = /* @__PURE__ */ (() => catalogParam(CodeParam, { valid: FX_PAIRS, code: 'UNKNOWN_INSTRUMENT', what: 'FX pair' }))();
const FuturesRootParam = /* @__PURE__ */ (() => catalogParam(CodeParam, { valid: FUTURES_ROOTS, code: 'UNKNOWN_ROOT', what: 'futures root' }))();
const InventoryKeyParam = /* @__PURE__ */ (() => catalogParam(SlugParam, { valid: INVENTORY_KEYS, code: 'UNKNOWN_SERIES', what: 'inventory series' }))();
const SectorParam = /* @__PURE__ */ (() =>
  catalogParam(SlugParam, {
    valid: SECTORS,
    code: 'UNKNOWN_SECTOR',
    what: 'sector',
    hint: 'the all-sector bundle is a separate route: /v1/snapshot/all or /v1/decision/all',
  }))();

/**
 * Bundle codes: each must be a catalog instrument (404 before any payment). Listed codes that no
 * source serves (PA) are allowed and answered under `missing`, as the catalog says they would be.
 */
const BundleCodesQuery = /* @__PURE__ */ (() =>
  CodesQuery.check(
    z.superRefine((codes: string[], ctx) => {
      const unknown = codes.filter((c) => !INSTRUMENT_CODES.includes(c));
      if (unknown.length === 0) return;
      ctx.addIssue({
        code: 'custom',
        message: `unknown instrument code${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
        params: { notFound: { code: 'UNKNOWN_INSTRUMENT', details: { unknown, valid: INSTRUMENT_CODES } } satisfies NotFoundIssue },
      });
    }),
  ))();

/** Bundles answer headline figures by default; `view=full` has every observation (same price). */
const ViewQuery = /* @__PURE__ */ (() =>
  z.object({
    view: z._default(z.enum(['compact', 'full']), 'compact').check(z.describe('compact (default): headline figures; full: every observation and line')),
    ...AS_KNOWN_AT,
  }))();

/** A data route without other query parameters: `as_known_at` only (any other is refused: ./query-names.ts). */
const AsKnownAtOnly = /* @__PURE__ */ (() => z.object(AS_KNOWN_AT))();

/** A payment's id in GET /v1/payments/{id}: `<payer>-<nonce>`, as PAYMENT-RESPONSE extra.status names it. */
const PaymentIdParam = /* @__PURE__ */ (() =>
  z.pipe(
    z.pipe(
      z.string().check(z.maxLength(140)),
      z.transform((s: string) => s.trim().toLowerCase()),
    ),
    z
      .string()
      .check(z.regex(/^0x[0-9a-f]{40}-0x[0-9a-f]{64}$/, 'a payment id: <payer address>-<authorization nonce>, as PAYMENT-RESPONSE extra.status names it')),
  ))();

export {
  PaymentIdParam,
  AS_KNOWN_AT,
  AsKnownAtOnly,
  ViewQuery,
  InstrumentParam,
  CotCodeParam,
  FxPairParam,
  FuturesRootParam,
  InventoryKeyParam,
  SectorParam,
  BundleCodesQuery,
  SlugParam,
  HistoryQuery,
  NoParams,
  HISTORY_MAX_LIMIT,
  HISTORY_DEFAULT_LIMIT,
};
export type { NotFoundIssue, NotFoundCode };
