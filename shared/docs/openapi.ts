/**
 * OpenAPI 3.1 document generated from the route table: paths, parameters from the route's zod
 * schemas, the 200 body from its output schema, the 402 bodies of both lanes, the error body,
 * both payment lanes as security schemes, prices (USD and USDC atomic units) and the response
 * headers. Nothing here re-types a path, a price or a field.
 */
import * as z from '../zod';
import { API_VERSION, SERVICE_NAME } from './identity';
import { type RouteDef, ROUTES } from '../routes/table';
import { usdToAtomic } from '../routes/pricing';
import { typicalBodyKb } from '../routes/body-sizes';
import { unknownQueryRule } from '../routes/query-names';
import { ErrorBody, PaymentRequiredBody } from '../schemas';
import { chargedUsd, type DocsConfig, freeText } from './charge';
import { caseInsensitive } from './case-insensitive';

type Json = Record<string, unknown>;

/** Shared schemas (those with a registry id) land in components.schemas and are referenced from there. */
const toSchema = (schema: z.core.$ZodType, io: 'input' | 'output', components: Record<string, unknown>): Json => {
  const { $schema: _, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json & { $defs?: Record<string, unknown> };
  const relink = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll('"#/$defs/', '"#/components/schemas/'));
  for (const [k, v] of Object.entries($defs ?? {})) {
    const schemaJson = relink(v);
    // Two different schemas under one id would silently publish the wrong one.
    if (components[k] !== undefined && JSON.stringify(components[k]) !== JSON.stringify(schemaJson)) throw new Error(`two schemas share the id ${k}`);
    components[k] = schemaJson;
  }
  return relink(rest);
};

const operationIdOf = (r: RouteDef): string =>
  r.mcp?.tool ??
  `${r.method.toLowerCase()}_${r.path
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')}`;

const FAMILY_TAGS: Record<string, string> = {
  price: 'Latest prices, bundles, history and FX',
  curve: 'Forward curves and calendar spreads (licensed provider; free stubs while off)',
  inventory: 'EIA weekly inventories with 5-year comparison and surprise',
  cot: 'CFTC managed-money positioning',
  spreads: 'Crack, crush and basis spreads (derived)',
  fundamentals: 'WASDE balance sheets, crop progress, export sales, USGS minerals',
  snapshot: 'Sector snapshots',
  decision: 'Deterministic decision packs',
  discovery: 'Free discovery documents, health, catalog and calendar',
  mcp: 'Model Context Protocol endpoint',
  watches:
    'Webhook watches of Pro keys: a paid path POSTed to your receiver when a release changes it (Standard Webhooks signatures; charged once per delivery)',
};

const header = (description: string) => ({ description, schema: { type: 'string' } });
const REQUEST_ID = header('The request id, also in every error body (quote it in support requests).');
const json = (schema: Json) => ({ 'application/json': { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const errorResponse = (description: string) => ({ description, headers: { 'X-Request-Id': REQUEST_ID }, content: json(ref('Error')) });

/** Issue 37: the conditional request header of paid routes. */
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an answer you have (or of a webhook delivery): 304 and nothing charged while the data is unchanged.',
  schema: { type: 'string' },
};

const parametersOf = (r: RouteDef, components: Record<string, unknown>) => {
  const params = toSchema(r.params, 'input', components) as { properties?: Record<string, Json> };
  const query = toSchema(r.query, 'input', components) as { properties?: Record<string, Json>; required?: string[] };
  const describe = (name: string, schema: Json) => (schema.description as string | undefined) ?? `The ${name} parameter.`;
  return [
    ...Object.entries(params.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'path',
      required: true,
      description: describe(name, schema),
      schema: caseInsensitive(schema),
    })),
    ...Object.entries(query.properties ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: (query.required ?? []).includes(name),
      description: describe(name, schema),
      schema: caseInsensitive(schema),
    })),
  ];
};

const paidResponses = (r: RouteDef) => ({
  401: errorResponse('INVALID_API_KEY: the Pro key in Authorization is malformed, unknown or revoked; nothing was charged.'),
  402: {
    description:
      'Payment required. x402: the PaymentRequired object (also base64 in the PAYMENT-REQUIRED header); pay and retry with PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1). ' +
      'Pro key: QUOTA_EXCEEDED when the credits are spent.',
    headers: { 'PAYMENT-REQUIRED': header('Base64 of the PaymentRequired object (x402 v2).'), 'X-Request-Id': REQUEST_ID },
    // The v1 body answers a request that carries X402-Version: 1 (x402 v1 clients read only the body).
    content: json({ oneOf: [ref('PaymentRequired'), ref('PaymentRequiredV1'), ref('Error')] }),
  },
  409: errorResponse('PAYMENT_ID_CONFLICT: the x402 payment-identifier id was already used with another payment or resource; nothing was charged.'),
  429: errorResponse('RATE_LIMITED: too many calls per second with one Pro key; retry after Retry-After seconds. Nothing was charged.'),
  502: errorResponse('The payment facilitator could not be reached; nothing was charged.'),
  504: errorResponse(`Settlement still pending; retry the same request with the same payment header to receive the data (${r.id}).`),
});

/** A JSON-RPC 2.0 error response: how the MCP endpoint's transport refuses a message. */
const JSONRPC_ERROR = {
  type: 'object',
  description: 'A JSON-RPC 2.0 error response.',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    id: { type: ['string', 'integer', 'null'] },
    error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} }, required: ['code', 'message'] },
  },
  required: ['jsonrpc', 'error'],
};
const jsonRpcRefusal = (description: string) => ({
  description,
  headers: { 'X-Request-Id': REQUEST_ID },
  content: json({ anyOf: [JSONRPC_ERROR, ref('Error')] }),
});

/** The MCP endpoint's refusals, written by the SDK's transport in JSON-RPC (a Pro key refused is still the error body). */
const MCP_REFUSALS = {
  400: jsonRpcRefusal('Not a JSON-RPC message, or 2026-07-28 headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name) that disagree with the body.'),
  403: jsonRpcRefusal('DNS rebinding protection: an Origin other than this service’s (or, served from loopback, a Host that is not a loopback name).'),
  406: jsonRpcRefusal('Accept must allow application/json and text/event-stream.'),
  415: jsonRpcRefusal('Content-Type must be application/json.'),
};

/** The header by which an x402 v1 client asks for the v1 402 body. */
const X402_VERSION_PARAM = {
  name: 'X402-Version',
  in: 'header',
  required: false,
  description: 'Send 1 to receive the 402 body in x402 v1 shape (PaymentRequiredV1), as x402 v1 clients read it; the PAYMENT-REQUIRED header stays v2.',
  schema: { type: 'string' },
};

/**
 * Who may call a charged route: anyone without credentials (the x402 flow starts with an unpaid
 * request, answered 402), or with an x402 payment (v2 or v1 header), or with a Pro key. Without the
 * empty requirement a validating proxy refuses the unpaid request the flow begins with.
 */
const PAID_SECURITY = [{}, { x402: [] }, { x402v1: [] }, { proKey: [] }];

const operationOf = (r: RouteDef, components: Record<string, unknown>, config: DocsConfig): Json => {
  const price = chargedUsd(r, config);
  const paid = price !== null;
  const description = [
    r.mcp?.description ?? r.summary,
    paid ? `Price: ${price} USD per call (${usdToAtomic(price)} USDC atomic units).` : `${freeText(r).replace(/^f/, 'F')}.`,
    typicalBodyKb(r.id) !== null ? `Typical answer: about ${typicalBodyKb(r.id)} KB.` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const okHeaders: Json = { 'X-Request-Id': REQUEST_ID };
  // Free GET answers carry a validator (shared/http/family-handler.ts): If-None-Match gets a 304.
  const cacheable = !paid && r.method === 'GET';
  if (cacheable) okHeaders.ETag = header('Validator of this answer; send it back in If-None-Match to get a 304 while it is unchanged.');
  // Issue 37: a paid answer's ETag is a keyed hash of its data (shared/http/conditional.ts).
  if (paid) okHeaders.ETag = header('Keyed validator of the data served (not of the per-call provenance); If-None-Match with it answers 304, charged nothing.');
  if (paid) {
    okHeaders['PAYMENT-RESPONSE'] = header(
      'x402 v2: base64 settlement receipt {success, transaction, network, payer}, with the signed receipt of this answer (offer-receipt, JWS: resource, payer, transaction, amount, SHA-256 of the body) in extensions["offer-receipt"].info.receipt.',
    );
    okHeaders['X-PAYMENT-RESPONSE'] = header('x402 v1: the same receipt under the v1 name.');
    okHeaders['X-Credits-Receipt'] = header('Pro key: the signed receipt of the credits charged, base64 JSON shaped as PAYMENT-RESPONSE.');
  }
  const body = r.mimeType === 'application/json' ? json(toSchema(r.output, 'output', components)) : { [r.mimeType]: { schema: { type: 'string' } } };
  // The route's own other answers (202 pending, 303 redirect, 405 refusals): below 400 with its body, from 400 the error body.
  const answers = Object.fromEntries(
    Object.entries(r.answers ?? {}).map(([status, description]) => [
      status,
      Number(status) >= 400 ? errorResponse(description) : { description, headers: { 'X-Request-Id': REQUEST_ID }, content: body },
    ]),
  );
  // The MCP endpoint's 400 is the transport's (JSON-RPC) or the route's own refusal of a query parameter.
  if (r.id === 'POST /api/mcp')
    Object.assign(answers, MCP_REFUSALS, { 400: { ...MCP_REFUSALS[400], description: `${MCP_REFUSALS[400].description} ${unknownQueryRule(r)}` } });
  return {
    operationId: operationIdOf(r),
    summary: r.summary,
    description,
    tags: [r.family],
    parameters: [...parametersOf(r, components), ...(paid ? [X402_VERSION_PARAM, IF_NONE_MATCH] : [])],
    ...(r.method === 'POST'
      ? {
          requestBody: {
            required: true,
            content: json(r.body ? toSchema(r.body, 'input', components) : { type: 'object', description: 'A JSON-RPC 2.0 message or batch.' }),
          },
        }
      : {}),
    security: paid ? PAID_SECURITY : r.proKey ? [{ proKey: [] }] : [],
    ...(paid ? { 'x-price-usd': price, 'x-price-atomic': usdToAtomic(price), 'x-price-key': r.priceKey } : {}),
    ...(typicalBodyKb(r.id) !== null ? { 'x-typical-body-kb': typicalBodyKb(r.id) } : {}),
    responses: {
      200: { description: 'OK', headers: okHeaders, content: body },
      ...(cacheable ? { 304: { description: 'Not Modified: the ETag sent in If-None-Match still matches; no body.' } } : {}),
      ...(paid
        ? {
            304: {
              description:
                'Not Modified: If-None-Match names the current data; no body, and nothing charged in any lane (an attached payment is neither verified nor settled).',
            },
          }
        : {}),
      400: errorResponse(`Invalid parameters (INVALID_PARAMETER, with every issue); nothing is charged. ${unknownQueryRule(r)}`),
      404: errorResponse(
        'Unknown instrument, series, sector or root (the valid values are listed; checked before any payment), or NO_DATA that no release will fill (not live, or not in the replayed samples; `covered` lists what is; at a past instant, as_known_at, `first_known_from` says when the series was first published).',
      ),
      ...(paid ? paidResponses(r) : {}),
      ...answers,
      503: errorResponse(
        'Retryable, nothing charged: no data stored yet (NO_DATA), the store is unavailable (STORE_UNAVAILABLE), or the request ran out of time before its payment could be settled (PAYMENT_NOT_SETTLED).',
      ),
    },
  };
};

/** OpenAPI's contact object: the operator's (an email address or a URL) when configured, else the agent briefing. */
const contactOf = (baseUrl: string, operator?: string) =>
  operator === undefined
    ? { name: 'Operator', url: `${baseUrl}/llms.txt` }
    : operator.includes('://')
      ? { name: 'Operator', url: operator }
      : { name: 'Operator', email: operator };

/** x402 v1's PaymentRequired (shared/payment/challenge.ts, toV1Body): one exact option in v1's shape. */
const PAYMENT_REQUIRED_V1 = {
  type: 'object',
  description: 'x402 v1 payment requirements, answered to a request with X402-Version: 1 (network by its v1 name, resource as an absolute URL).',
  properties: {
    x402Version: { type: 'integer', const: 1 },
    error: { type: 'string' },
    accepts: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          scheme: { type: 'string', const: 'exact' },
          network: { type: 'string', description: 'v1 network name, e.g. base or base-sepolia.' },
          maxAmountRequired: { type: 'string', pattern: '^\\d+$', description: 'USDC atomic units (6 decimals).' },
          resource: { type: 'string' },
          description: { type: 'string' },
          mimeType: { type: 'string' },
          payTo: { type: 'string' },
          maxTimeoutSeconds: { type: 'integer' },
          asset: { type: 'string' },
          extra: { type: 'object', properties: { name: { type: 'string' }, version: { type: 'string' } }, required: ['name', 'version'] },
        },
        required: ['scheme', 'network', 'maxAmountRequired', 'resource', 'description', 'mimeType', 'payTo', 'maxTimeoutSeconds', 'asset', 'extra'],
      },
    },
  },
  required: ['x402Version', 'error', 'accepts'],
  additionalProperties: false,
};

/**
 * Pure: the OpenAPI document.
 * @param baseUrl the public base URL, used in links
 * @param serverUrl the `servers` entry: the configured public URL, else `/` (the origin that served the document)
 * @param operatorContact OPERATOR_CONTACT, if configured
 * @param config which routes charge (shared/docs/charge.ts)
 */
const buildOpenApi = (baseUrl: string, serverUrl: string, operatorContact: string | undefined, config: DocsConfig) => {
  const components: Record<string, unknown> = {};
  toSchema(ErrorBody, 'output', components);
  toSchema(PaymentRequiredBody, 'output', components);
  components.PaymentRequiredV1 = PAYMENT_REQUIRED_V1;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of ROUTES) {
    paths[r.path] ??= {};
    paths[r.path]![r.method.toLowerCase()] = operationOf(r, components, config);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: SERVICE_NAME,
      version: API_VERSION,
      description:
        'Primary-source commodity observations (EIA, FRED, World Bank, CFTC, USDA, USGS), paid per call with x402 (USDC) or Pro credits. ' +
        'Every price is also in x-price-usd and x-price-atomic (USDC has 6 decimals).',
      contact: contactOf(baseUrl, operatorContact),
      license: { name: 'Data licenses per source (see terms)', url: `${baseUrl}/terms.txt` },
    },
    servers: [{ url: serverUrl }],
    tags: [...new Set(ROUTES.map((r) => r.family))].map((name) => ({ name, description: FAMILY_TAGS[name] ?? name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        x402: {
          type: 'apiKey',
          in: 'header',
          name: 'PAYMENT-SIGNATURE',
          description:
            'x402: call without payment, read the 402 PaymentRequired, sign an EIP-3009 USDC authorization for accepts[0] and retry with the base64 payment payload ' +
            'in PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (x402 v1). The receipt comes back in PAYMENT-RESPONSE / X-PAYMENT-RESPONSE. ' +
            'When the 402 also lists scheme batch-settlement (same price), one USDC deposit into an escrow channel pays many calls with a signed cumulative voucher each ' +
            '(@x402/evm/batch-settlement/client); see /llms.txt.',
        },
        x402v1: {
          type: 'apiKey',
          in: 'header',
          name: 'X-PAYMENT',
          description: 'x402 v1: the same payment payload under the v1 header name (x402-fetch 1.x, x402-axios); the receipt comes back in X-PAYMENT-RESPONSE.',
        },
        proKey: { type: 'http', scheme: 'bearer', description: 'A prepaid Pro key: Authorization: Bearer cds_live_… (1 credit = 0.01 USD of list price).' },
      },
    },
  };
};

export { buildOpenApi, operationIdOf };
