/**
 * Bodies of the free discovery routes. Health, catalog and calendar are strict; the documents
 * that follow outside formats (OpenAPI, the agent card, the x402 resource list) pin the fields
 * clients rely on and let the format's own optional fields through.
 */
import * as z from 'zod';
import { FreshnessClass, HealthStatus, IsoDateSchema, IsoDateTimeSchema, SourceFreshness } from './common';

const HealthBody = z.strictObject({
  status: HealthStatus,
  checked_at: IsoDateTimeSchema,
  stale_sources: z.array(z.string()),
  sources: z.array(SourceFreshness),
});

const CatalogBody = z.strictObject({
  instruments: z.array(
    z.strictObject({
      code: z.string(),
      meaning: z.string(),
      sector: z.enum(['energy', 'metals', 'ags', 'fx']),
      unit: z.string(),
      freshness_class: FreshnessClass,
      live: z.boolean(),
      not_live_reason: z.string().nullable(),
      cash_proxy_note: z.string().nullable(),
      source: z.string().nullable(),
      futures_root: z.string().nullable(),
      /** The newest stored observation's as_of; null before the first ingestion or for instruments not served. */
      latest_as_of: IsoDateSchema.nullable(),
      /** Whether its source is stale by /health's rule; null for instruments not served. */
      stale: z.boolean().nullable(),
      /** The paid routes that serve this instrument, with their USD price. */
      pricing_usd: z.record(z.string(), z.string().nullable()),
    }),
  ),
  inventory_series: z.array(z.strictObject({ key: z.string(), series_id: z.string(), unit: z.string(), meaning: z.string() })),
  /** Per fundamentals route: the commodities it serves and those the stored data covers (the demo's scope). */
  fundamentals: z.array(
    z.strictObject({
      route: z.string(),
      source: z.string(),
      commodities: z.array(z.string()),
      covered: z.array(z.string()),
      /** How the stored data was last ingested: a live run or the bundled samples; null before any run. */
      data: z.enum(['live', 'replay']).nullable(),
      note: z.string(),
    }),
  ),
  futures_roots: z.array(z.string()),
  routes: z.array(
    z.strictObject({
      id: z.string(),
      price_key: z.string().nullable(),
      summary: z.string(),
      charged: z.boolean(),
      price_usd: z.string().nullable(),
      price_credits: z.number().int().nonnegative(),
      price_usdc_atomic: z.string().regex(/^\d+$/),
    }),
  ),
  payment: z.strictObject({ lanes: z.array(z.string()), credit_usd: z.string() }),
});

const CalendarBody = z.strictObject({
  as_of: IsoDateSchema.or(IsoDateTimeSchema),
  releases: z.array(
    z.strictObject({
      source: z.string(),
      name: z.string(),
      feeds: z.string(),
      schedule: z.string(),
      time_zone: z.string(),
      next_release_at: IsoDateTimeSchema.nullable(),
      /** True when the date is outside the publisher schedule verified by this service (a rule's estimate). */
      estimated: z.boolean(),
      /** The holiday or announcement that moved the release off its regular slot; null when none. */
      shifted_by: z.string().nullable(),
      url: z.string(),
    }),
  ),
});

const OpenApiBody = z.object({
  openapi: z.string().startsWith('3.1'),
  info: z.object({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

const AgentCardBody = z.object({ name: z.string(), description: z.string(), version: z.string() });

const X402CatalogBody = z.object({
  x402Version: z.number().int(),
  resources: z.array(z.object({ url: z.string(), accepts: z.array(z.object({ scheme: z.string(), network: z.string(), payTo: z.string() })) })),
});

const McpToolListBody = z.object({
  endpoint: z.string(),
  tools: z.array(z.object({ name: z.string(), price_usd: z.string().nullable() })),
});

export { HealthBody, CatalogBody, CalendarBody, OpenApiBody, AgentCardBody, X402CatalogBody, McpToolListBody };

/** An MCP Registry entry (server.schema.json of 2025-12-11): a reverse-DNS name and the remote endpoint. */
const McpServerJsonBody = z.object({
  $schema: z.string().url(),
  name: z.string().regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  title: z.string(),
  description: z.string().max(100),
  version: z.string(),
  websiteUrl: z.string().url(),
  remotes: z.array(z.object({ type: z.literal('streamable-http'), url: z.string().url() })).min(1),
});

export { McpServerJsonBody };

/** POST /pro/checkout: where to pay (also the 303 Location). */
const CheckoutBody = z.strictObject({ url: z.string().url(), session_id: z.string() });

/** POST /pro/webhook: Stripe needs a fast 2xx; `duplicate` when the event id was already handled. */
const WebhookAckBody = z.strictObject({ received: z.literal(true), duplicate: z.boolean(), handled: z.string() });

export { CheckoutBody, WebhookAckBody };
