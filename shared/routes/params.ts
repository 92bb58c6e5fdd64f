/**
 * Zod schemas for path and query parameters, shared by the route table (validation, OpenAPI,
 * MCP tool inputs). Format is checked here (400); existence of a code or key is checked by the
 * handler against the catalog (404), so a well-formed unknown code is told apart from garbage.
 */
import { z } from 'zod';

/** Codes are case-insensitive: `cl` is served as `CL` (documented in the README). */
const CodeParam = z
  .string()
  .max(32, 'code is at most 32 characters')
  .transform((s) => s.trim().toUpperCase())
  .pipe(z.string().regex(/^[A-Z][A-Z0-9]{0,15}$/, 'code must be letters and digits, e.g. CL'));

/** Lower-case slugs (sectors, inventory keys); upper-case input is folded. */
const SlugParam = z
  .string()
  .max(32, 'at most 32 characters')
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be a lower-case key such as energy or crude_ex_spr'));

/** Most codes one bundle call may ask for. */
const MAX_BUNDLE_CODES = 30;

const CodesQuery = z
  .string({ error: 'codes is required: a comma-separated list such as CL,BZ,NG' })
  .max(600, 'codes is too long')
  .transform((s) => [...new Set(s.split(',').map((c) => c.trim().toUpperCase()).filter(Boolean))])
  .pipe(
    z
      .array(z.string().regex(/^[A-Z][A-Z0-9]{0,15}$/, 'each code must be letters and digits'))
      .min(1, 'codes must name at least one instrument')
      .max(MAX_BUNDLE_CODES, `at most ${MAX_BUNDLE_CODES} distinct codes per call`),
  );

const isCalendarDate = (s: string): boolean => {
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};

/** A real calendar date in YYYY-MM-DD form (2025-02-30 is refused). */
const DateQuery = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date as YYYY-MM-DD')
  .refine(isCalendarDate, 'not a calendar date');

const HISTORY_FREQUENCIES = ['native', 'weekly', 'monthly'] as const;
const HISTORY_MAX_LIMIT = 1000;
const HISTORY_DEFAULT_LIMIT = 365;

const HistoryQuery = z
  .object({
    start: DateQuery.optional(),
    end: DateQuery.optional(),
    limit: z.coerce
      .number({ error: 'limit must be a whole number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(HISTORY_MAX_LIMIT, `limit is at most ${HISTORY_MAX_LIMIT}`)
      .default(HISTORY_DEFAULT_LIMIT),
    frequency: z.enum(HISTORY_FREQUENCIES).default('native'),
    cursor: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'cursor is the `next` value of a previous page').optional(),
  })
  .refine((q) => !q.start || !q.end || q.start <= q.end, { message: 'start must not be after end', path: ['start'] });

const NoParams = z.object({});

export {
  CodeParam,
  SlugParam,
  CodesQuery,
  DateQuery,
  HistoryQuery,
  NoParams,
  MAX_BUNDLE_CODES,
  HISTORY_FREQUENCIES,
  HISTORY_MAX_LIMIT,
  HISTORY_DEFAULT_LIMIT,
};
