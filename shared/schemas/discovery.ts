/**
 * Bodies of the free discovery routes. Each is strict (a key it does not name is a drift), except
 * the OpenAPI document, whose format allows fields and extensions of its own.
 */
import * as z from '../zod';
import { FreshnessClass, HealthStatus, IsoDateSchema, IsoDateTimeSchema, SourceFreshness } from './common';
import { PaymentRequiredBody } from './errors';

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
      not_live_reason: z.nullable(z.string()),
      cash_proxy_note: z.nullable(z.string()),
      source: z.nullable(z.string()),
      futures_root: z.nullable(z.string()),
      /** The newest stored observation's as_of; null before the first ingestion or for instruments not served. */
      latest_as_of: z.nullable(IsoDateSchema),
      /** Whether its source is stale by /health's rule; null for instruments not served. */
      stale: z.nullable(z.boolean()),
      /** The paid routes that serve this instrument, with their USD price. */
      pricing_usd: z.record(z.string(), z.nullable(z.string())),
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
      data: z.nullable(z.enum(['live', 'replay'])),
      note: z.string(),
    }),
  ),
  futures_roots: z.array(z.string()),
  routes: z.array(
    z.strictObject({
      id: z.string(),
      price_key: z.nullable(z.string()),
      summary: z.string(),
      charged: z.boolean(),
      price_usd: z.nullable(z.string()),
      price_credits: z.int().check(z.nonnegative()),
      price_usdc_atomic: z.string().check(z.regex(/^\d+$/)),
    }),
  ),
  payment: z.strictObject({ lanes: z.array(z.string()), credit_usd: z.string() }),
});

const CalendarBody = z.strictObject({
  as_of: z.union([IsoDateSchema, IsoDateTimeSchema]),
  releases: z.array(
    z.strictObject({
      source: z.string(),
      name: z.string(),
      feeds: z.string(),
      schedule: z.string(),
      time_zone: z.string(),
      next_release_at: z.nullable(IsoDateTimeSchema),
      /** True when the date is outside the publisher schedule verified by this service (a rule's estimate). */
      estimated: z.boolean(),
      /** The holiday or announcement that moved the release off its regular slot; null when none. */
      shifted_by: z.nullable(z.string()),
      url: z.string(),
    }),
  ),
});

/** A JSON Schema (the documents publish the route table's schemas as JSON Schema). */
const JsonSchemaObject = z.record(z.string(), z.unknown());

/**
 * OpenAPI 3.1: the fields clients rely on are pinned, every other field of the format (and `x-`
 * extensions) is allowed, as the format allows them.
 */
const OpenApiBody = z.looseObject({
  openapi: z.string().check(z.regex(/^3\.1\.\d+$/)),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  servers: z.array(z.looseObject({ url: z.string() })),
  tags: z.array(z.looseObject({ name: z.string() })),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.looseObject({ schemas: z.record(z.string(), z.unknown()), securitySchemes: z.record(z.string(), z.unknown()) }),
});

/** An A2A security scheme in OpenAPI's shape (the two payment lanes). */
const A2aSecurityScheme = z.union([
  z.strictObject({ type: z.literal('apiKey'), in: z.enum(['header', 'query', 'cookie']), name: z.string(), description: z.string() }),
  z.strictObject({ type: z.literal('http'), scheme: z.string(), description: z.string() }),
]);

/**
 * The agent card: an A2A AgentCard of protocol 0.3.0 (its required fields, the optional ones this
 * service fills, and no other). How to reach the service sits in one extension under
 * `capabilities.extensions`, as A2A places extensions.
 */
const AgentCardBody = z.strictObject({
  protocolVersion: z.literal('0.3.0'),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  preferredTransport: z.string(),
  version: z.string(),
  provider: z.strictObject({ organization: z.string(), url: z.string() }),
  documentationUrl: z.string(),
  capabilities: z.strictObject({
    streaming: z.boolean(),
    pushNotifications: z.boolean(),
    stateTransitionHistory: z.boolean(),
    extensions: z.array(z.strictObject({ uri: z.string(), description: z.string(), required: z.boolean(), params: z.record(z.string(), z.unknown()) })),
  }),
  securitySchemes: z.record(z.string(), A2aSecurityScheme),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(z.strictObject({ id: z.string(), name: z.string(), description: z.string(), tags: z.array(z.string()), examples: z.array(z.string()) })),
});

/** /.well-known/x402(.json): every chargeable route with the payment option its 402 offers and its JSON Schemas. */
const X402CatalogBody = z.strictObject({
  x402Version: z.int(),
  enforced: z.boolean(),
  resources: z.array(
    z.strictObject({
      method: z.string(),
      url: z.string(),
      route: z.string(),
      description: z.string(),
      mimeType: z.string(),
      price_usd: z.string(),
      price_atomic: z.string().check(z.regex(/^\d+$/)),
      typical_body_kb: z.nullable(z.number()),
      accepts: PaymentRequiredBody.shape.accepts,
      input: z.strictObject({ path: JsonSchemaObject, query: JsonSchemaObject }),
      output: JsonSchemaObject,
    }),
  ),
  /** Priced routes that are free under this configuration (the curve stubs while indicative futures are off). */
  free_while_stubbed: z.array(z.string()),
  /** When an exact payment is settled: after the answer up to a price and a payer's caps, else before (shared/payment/exact/deferral.ts). */
  exact_settlement: z.strictObject({
    deferred_up_to_usd: z.string(),
    max_outstanding_usd_per_payer: z.string(),
    max_unsettled_calls_per_payer: z.int(),
    deferred_routes: z.array(z.string()),
    status_url: z.string(),
    policy: z.string(),
  }),
  /** Who signs the offers of every 402 and the receipt of every paid answer (offer-receipt); null when nothing is signed. */
  receipt_signing: z.nullable(z.strictObject({ format: z.enum(['jws', 'eip712']), kid: z.string(), previous_kids: z.array(z.string()) })),
});

/** GET /api/mcp: the tools with their routes and prices (null: free under this configuration). */
const McpToolListBody = z.strictObject({
  transport: z.literal('streamable-http'),
  endpoint: z.string(),
  tools: z.array(z.strictObject({ name: z.string(), route: z.string(), price_usd: z.nullable(z.string()), description: z.string() })),
});

export { HealthBody, CatalogBody, CalendarBody, OpenApiBody, AgentCardBody, X402CatalogBody, McpToolListBody };

/** An MCP Registry entry (server.schema.json of 2025-12-11): a reverse-DNS name and the remote endpoint. */
const McpServerJsonBody = z.object({
  $schema: z.url(),
  name: z.string().check(z.regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/)),
  title: z.string(),
  description: z.string().check(z.maxLength(100)),
  version: z.string(),
  websiteUrl: z.url(),
  remotes: z.array(z.object({ type: z.literal('streamable-http'), url: z.url() })).check(z.minLength(1)),
});

export { McpServerJsonBody };

/** POST /pro/checkout: where to pay (also the 303 Location). */
const CheckoutBody = z.strictObject({ url: z.url(), session_id: z.string() });

/** POST /pro/webhook: Stripe needs a fast 2xx; `duplicate` when the event id was already handled. */
const WebhookAckBody = z.strictObject({ received: z.literal(true), duplicate: z.boolean(), handled: z.string() });

export { CheckoutBody, WebhookAckBody };
