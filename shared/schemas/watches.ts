/** Request and answer bodies of /v1/watches (issue 37): what OpenAPI states and dev stage validates; and the limit per key they state. */
import * as z from '../zod';
import { IsoDateTimeSchema } from '../observation/schema';

/** Watches one Pro key may hold (issue 37; OpenAPI and the route table state it). */
const MAX_WATCHES_PER_KEY = 25;

const CreateWatchBody = z
  .strictObject({
    path: z
      .string()
      .check(z.minLength(1), z.maxLength(2048), z.describe('A paid GET path of this API with its query, e.g. /v1/inventory/eia or /v1/price/CL.')),
    url: z.string().check(z.minLength(1), z.maxLength(2048), z.describe('The receiver: an https URL on a public address (http to loopback only in dev).')),
  })
  .register(z.globalRegistry, { id: 'CreateWatch' });

const WatchIdParam = z.string().check(z.regex(/^w[0-9a-f]{20}$/, 'a watch id (w followed by 20 hex digits)'));

const WatchBody = z
  .strictObject({
    id: z.string(),
    path: z.string(),
    url: z.string(),
    state: z.enum(['active', 'paused', 'disabled']),
    reason: z.nullable(z.string()).check(z.describe('Why the watch is paused (no credits) or disabled (deliveries kept failing); null while active.')),
    created_at: IsoDateTimeSchema,
    deliveries: z.int().check(z.nonnegative()),
    failures: z.int().check(z.nonnegative(), z.describe('Failed attempts (each retried with backoff for about 24 h).')),
    credits_charged: z.int().check(z.nonnegative()),
    credits_per_delivery: z
      .int()
      .check(z.nonnegative(), z.describe("The watched route's price in credits, charged once per delivery the receiver answered 2xx.")),
    last_delivered_at: z.nullable(IsoDateTimeSchema),
    last_etag: z
      .nullable(z.string())
      .check(z.describe('The ETag of the last answer delivered (or current at creation): GET the path with it in If-None-Match for a free 304.')),
  })
  .register(z.globalRegistry, { id: 'Watch' });

const WatchCreatedBody = z
  .extend(WatchBody, {
    secret: z.string().check(z.startsWith('whsec_'), z.describe('The Standard Webhooks signing secret of this watch: shown once, here.')),
    limit: z.int().check(z.describe(`Watches one Pro key may hold (${MAX_WATCHES_PER_KEY}).`)),
  })
  .register(z.globalRegistry, { id: 'WatchCreated' });

const WatchListBody = z.strictObject({ watches: z.array(WatchBody), limit: z.int() }).register(z.globalRegistry, { id: 'WatchList' });

const DeliveryBody = z.strictObject({
  id: z.string(),
  etag: z.string(),
  state: z
    .enum(['pending', 'delivered', 'dead', 'unpaid'])
    .check(z.describe('dead: every retry failed (the dead-letter record); unpaid: no credits, nothing was sent.')),
  attempts: z.int(),
  last_status: z.nullable(z.int()),
  last_error: z.nullable(z.string()),
  credits_charged: z.int(),
  created_at: IsoDateTimeSchema,
  updated_at: IsoDateTimeSchema,
});

const WatchDetailBody = z.extend(WatchBody, { recent_deliveries: z.array(DeliveryBody) }).register(z.globalRegistry, { id: 'WatchDetail' });

const WatchDeletedBody = z.strictObject({ id: z.string(), deleted: z.literal(true) });

export { MAX_WATCHES_PER_KEY, CreateWatchBody, WatchIdParam, WatchCreatedBody, WatchListBody, WatchDetailBody, WatchDeletedBody };
