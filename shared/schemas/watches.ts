/** Request and answer bodies of /v1/watches (issue 37): what OpenAPI states and dev stage validates; and the limit per key they state. */
import * as z from 'zod';
import { IsoDateTimeSchema } from '../observation/schema';

/** Watches one Pro key may hold (issue 37; OpenAPI and the route table state it). */
const MAX_WATCHES_PER_KEY = 25;

const CreateWatchBody = z
  .strictObject({
    path: z.string().min(1).max(2048).describe('A paid GET path of this API with its query, e.g. /v1/inventory/eia or /v1/price/CL.'),
    url: z.string().min(1).max(2048).describe('The receiver: an https URL on a public address (http to loopback only in dev).'),
  })
  .meta({ id: 'CreateWatch' });

const WatchIdParam = z.string().regex(/^w[0-9a-f]{20}$/, 'a watch id (w followed by 20 hex digits)');

const WatchBody = z
  .strictObject({
    id: z.string(),
    path: z.string(),
    url: z.string(),
    state: z.enum(['active', 'paused', 'disabled']),
    reason: z.string().nullable().describe('Why the watch is paused (no credits) or disabled (deliveries kept failing); null while active.'),
    created_at: IsoDateTimeSchema,
    deliveries: z.number().int().nonnegative(),
    failures: z.number().int().nonnegative().describe('Failed attempts (each retried with backoff for about 24 h).'),
    credits_charged: z.number().int().nonnegative(),
    credits_per_delivery: z.number().int().nonnegative().describe("The watched route's price in credits, charged once per delivery the receiver answered 2xx."),
    last_delivered_at: IsoDateTimeSchema.nullable(),
    last_etag: z
      .string()
      .nullable()
      .describe('The ETag of the last answer delivered (or current at creation): GET the path with it in If-None-Match for a free 304.'),
  })
  .meta({ id: 'Watch' });

const WatchCreatedBody = WatchBody.extend({
  secret: z.string().startsWith('whsec_').describe('The Standard Webhooks signing secret of this watch: shown once, here.'),
  limit: z.number().int().describe(`Watches one Pro key may hold (${MAX_WATCHES_PER_KEY}).`),
}).meta({ id: 'WatchCreated' });

const WatchListBody = z.strictObject({ watches: z.array(WatchBody), limit: z.number().int() }).meta({ id: 'WatchList' });

const DeliveryBody = z.strictObject({
  id: z.string(),
  etag: z.string(),
  state: z
    .enum(['pending', 'delivered', 'dead', 'unpaid'])
    .describe('dead: every retry failed (the dead-letter record); unpaid: no credits, nothing was sent.'),
  attempts: z.number().int(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  credits_charged: z.number().int(),
  created_at: IsoDateTimeSchema,
  updated_at: IsoDateTimeSchema,
});

const WatchDetailBody = WatchBody.extend({ recent_deliveries: z.array(DeliveryBody) }).meta({ id: 'WatchDetail' });

const WatchDeletedBody = z.strictObject({ id: z.string(), deleted: z.literal(true) });

export { MAX_WATCHES_PER_KEY, CreateWatchBody, WatchIdParam, WatchCreatedBody, WatchListBody, WatchDetailBody, WatchDeletedBody };
