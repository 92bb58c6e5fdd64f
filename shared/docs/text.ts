/**
 * The text discovery documents (llms.txt, llms-full.txt, SKILL.md, terms.txt), generated from
 * the route table and the catalog. Header names are the x402 packages' own.
 */
import * as z from '../zod';
import { INSTRUMENTS } from '../catalog/instruments';
import { INVENTORY_KEYS } from '../catalog/inventory';
import { FREE_ROUTES, PAID_ROUTES, ROUTES, type RouteDef } from '../routes/table';
import { usdToAtomic, usdToCredits } from '../routes/pricing';
import { chargedUsd, type DocsConfig, freeText } from './charge';
import { SERVICE_NAME, SERVICE_SUMMARY } from './identity';
import { buildMethodsText } from './methods';
import { MAX_WATCHES_PER_KEY } from '../schemas/watches';
import { UNTIL_NEW } from '../sources/until-new';

/** A value each path or query parameter accepts, for example requests. */
const SAMPLE_ARGS: Readonly<Record<string, string>> = { code: 'CL', root: 'CL', pair: 'EURUSD', series: 'crude_ex_spr', sector: 'energy', codes: 'CL,NG,GC' };

const argsOf = (schema: z.core.$ZodType): Array<{ name: string; required: boolean; description: string }> => {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { description?: string }>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, p]) => ({ name, required: (json.required ?? []).includes(name), description: p.description ?? '' }));
};

/** Sample ids of the shape each route takes (`id` names a different thing per route): a watch id, a payment id (payer-nonce). */
const SAMPLE_IDS: Readonly<Record<string, string>> = {
  '/v1/watches/{id}': 'w0123456789abcdef0123',
  '/v1/payments/{id}': `0x70997970c51812dc3a010c7d01b50e0d17dc79c8-0x${'ab'.repeat(32)}`,
};

/** The example request path of a route: its path with sample values, required query parameters filled in. */
const examplePath = (r: RouteDef): string => {
  const path = r.path.replace(/\{(\w+)\}/g, (_m, p: string) => (p === 'id' ? SAMPLE_IDS[r.path] : SAMPLE_ARGS[p]) ?? p);
  const query = argsOf(r.query).filter((a) => a.required);
  return query.length ? `${path}?${query.map((a) => `${a.name}=${SAMPLE_ARGS[a.name] ?? ''}`).join('&')}` : path;
};

/** "1 credit", "3 credits". */
const creditsText = (n: number) => `${n} credit${n === 1 ? '' : 's'}`;

/** A route's price as this deployment charges it (shared/docs/charge.ts), or why it is free. */
const priceText = (r: RouteDef, config: DocsConfig) => {
  const usd = chargedUsd(r, config);
  return usd ? `${usd} USD (${creditsText(usdToCredits(usd))}, ${usdToAtomic(usd)} USDC atomic units)` : freeText(r);
};

const link = (baseUrl: string, r: RouteDef, config: DocsConfig) =>
  `- [${r.method} ${r.path}](${baseUrl}${examplePath(r)}): ${r.summary}; ${priceText(r, config)}`;

/** Pure: the short agent briefing (llmstxt.org: H1, summary quote, H2 sections of links, Optional last). */
const buildLlmsTxt = (baseUrl: string, config: DocsConfig) =>
  [
    `# ${SERVICE_NAME}`,
    '',
    `> ${SERVICE_SUMMARY} Pay each call in USDC with x402 (HTTP 402, then retry with PAYMENT-SIGNATURE; v1 clients X-PAYMENT) or with a Pro key (Authorization: Bearer). Failed calls are never charged.`,
    '',
    `Instruments: ${INSTRUMENTS.map((i) => i.code).join(', ')} (case-insensitive). Inventory series: ${INVENTORY_KEYS.join(', ')}.`,
    '',
    'Point in time: every data route takes as_known_at=<ISO 8601 instant> and answers as published then (no look-ahead; same price).',
    '',
    'Pay only for news: every paid answer has an ETag; send it back in If-None-Match and an unchanged answer is 304, charged nothing (MCP tools: if_none_match). Pro keys can watch a paid path (POST /v1/watches {"path", "url"}, or the MCP tool create_watch): each release that changes it is POSTed to your URL within about a minute of the publisher\'s release, signed per Standard Webhooks, charged once.',
    '',
    '## Docs',
    `- [llms-full.txt](${baseUrl}/llms-full.txt): every route with parameters, price, example request and response; both payment flows; methods; glossary; errors`,
    `- [OpenAPI 3.1](${baseUrl}/openapi.json): paths, parameters, response schemas, security schemes, prices`,
    `- [SKILL.md](${baseUrl}/SKILL.md): when and how to use the API, with worked examples`,
    `- [x402 resources](${baseUrl}/.well-known/x402): every paid resource with its payment requirements and schemas`,
    `- [MCP endpoint](${baseUrl}/api/mcp): the same data as MCP tools (Streamable HTTP)`,
    '',
    '## Paid routes',
    ...PAID_ROUTES.map((r) => link(baseUrl, r, config)),
    '',
    '## Free routes',
    ...FREE_ROUTES.filter((r) => r.mimeType === 'application/json' && !r.path.startsWith('/.well-known') && r.path !== '/openapi.json').map((r) =>
      link(baseUrl, r, config),
    ),
    '',
    '## Optional',
    `- [Agent card](${baseUrl}/.well-known/agent-card.json): A2A agent card (who we are, skills, how to pay and reach the MCP server)`,
    `- [Terms](${baseUrl}/terms.txt): data licenses per source, no warranty, payment finality`,
    '',
  ].join('\n');

const PAYMENT_FLOWS = [
  '## Paying with x402 (USDC)',
  '1. Call the route without payment. It answers HTTP 402 with the PaymentRequired object as the JSON body and, base64-encoded, in the PAYMENT-REQUIRED header.',
  '   accepts[0] names scheme "exact", network (CAIP-2: eip155:8453 Base, eip155:84532 Base Sepolia), asset (USDC), payTo, amount (atomic units, 6 decimals) and maxTimeoutSeconds.',
  '2. Sign an EIP-3009 TransferWithAuthorization for exactly that amount to payTo (any x402 client does this: @x402/fetch, x402-fetch, x402-axios).',
  '3. Retry the same request with the base64 payment payload in PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (x402 v1).',
  '   x402 v1 clients (x402-fetch 1.x) read only the 402 body: send the request header X402-Version: 1 and the body is x402 v1 (network "base"/"base-sepolia", absolute resource URL); the PAYMENT-REQUIRED header stays v2.',
  '4. The answer carries the data and the settlement receipt {success, transaction, network, payer} base64-encoded in PAYMENT-RESPONSE (v2) and X-PAYMENT-RESPONSE (v1).',
  'Cheap calls (at or below exact_settlement.deferred_up_to_usd in /.well-known/x402.json, 0.05 USD by default) are answered as soon as the payment is verified and settled on chain right after: their PAYMENT-RESPONSE says success false, errorReason "settlement_pending", and extra.status is a free URL (GET /v1/payments/{id}) that shows the transaction once it is on chain; you are charged once, only with the data.',
  'Keep the price in your wallet until extra.status shows the transaction: dearer calls, a payer over exact_settlement.max_outstanding_usd_per_payer (0.25 USD) or max_unsettled_calls_per_payer (25) unsettled, and every later call of a payer whose deferred settlement failed (funds moved first) are settled before the data leave.',
  'Proof of delivery: the 402 carries offers signed by the service (extensions["offer-receipt"].info.offers) and every paid answer a signed receipt (JWS: resource, payer, transaction, amount, SHA-256 of the body) in PAYMENT-RESPONSE extensions["offer-receipt"].info.receipt (Pro keys: X-Credits-Receipt; MCP: the same in _meta); verify it with verifyReceiptSignatureJWS of @x402/extensions/offer-receipt; /.well-known/x402.json receipt_signing names the signing key.',
  'Nothing is settled unless data is delivered. A 504 SETTLEMENT_PENDING means: retry the same request with the same payment header to receive the data; do not sign a new payment.',
  'A refused payment answers 402 INVALID_PAYMENT with a fresh PAYMENT-REQUIRED header whose error names the reason.',
  '',
  '## Paying many calls with x402 batch-settlement (USDC, same price, no wait for the chain)',
  'When the facilitator offers it, accepts[1] names scheme "batch-settlement" at the same amount, with extra {receiverAuthorizer, withdrawDelay (s), minDeposit}.',
  '1. The first paid call deposits USDC (at least minDeposit, by default 5 USD) into an escrow channel between you and payTo; its answer waits for that deposit on chain.',
  '2. Every later call signs a cumulative voucher (EIP-712, no transaction) for the running total; the answer does not wait for the chain, and the answer carries the channel state in PAYMENT-RESPONSE.',
  '3. The service claims vouchers on chain in batches. An error answer (status >= 400) charges nothing: the next voucher signs the same total again.',
  '4. What is not spent comes back: a channel unused for a day is refunded to you (what was charged is claimed, the rest returned); you can also request a withdrawal from the escrow, which completes after withdrawDelay.',
  'The official client does all of this: register BatchSettlementEvmScheme from @x402/evm/batch-settlement/client instead of (or beside) the exact scheme.',
  '',
  '## Paying with a Pro key (credits)',
  '1. Send Authorization: Bearer <key> on any paid call. 1 credit = 0.01 USD of the route list price; a 0.02 USD route costs 2 credits.',
  '2. Answers carry the remaining budget in response headers. When the credits are spent the answer is 402 QUOTA_EXCEEDED; a failed call is refunded.',
  '',
  '## MCP',
  'POST /api/mcp speaks MCP Streamable HTTP (stateless). Every paid route is a tool (tools/list gives names, schemas and prices). An unpaid paid call returns a tool',
  'result with isError true and the PaymentRequired object as structuredContent (resource.url mcp://tool/<name>); retry the call with the payment payload in',
  'params._meta["x402/payment"]; the receipt comes back in result._meta["x402/payment-response"]. A Pro key goes in the Authorization header of the POST.',
  'Webhook watches are tools too (Pro key on the POST; free, a delivery is what is charged): create_watch {"path", "url"} (answers the id and the signing secret, shown once), list_watches {}, get_watch {"id"}, delete_watch {"id"}; the same rules and limits as /v1/watches. Without a Pro key they answer an isError result INVALID_API_KEY.',
  '',
  '## Pay only for news (ETag, webhook watches)',
  '- Every paid answer carries an ETag of its data (a keyed hash: it cannot be guessed from a figure). Send it in If-None-Match: while the data is unchanged the answer is 304 with no body and nothing is charged, whatever payment is attached (the payment is neither verified nor settled, no credits are taken). as_known_at answers have their own tags.',
  '- MCP: a paid tool result names its etag in result._meta["commodity-data/etag"]; pass it as the if_none_match argument and an unchanged answer is {"not_modified": true, "etag"}, charged nothing.',
  `- Watches (Pro keys, at most ${MAX_WATCHES_PER_KEY} per key): POST /v1/watches {"path": "/v1/inventory/eia", "url": "https://agent.example/hook"} answers 201 with the watch id and its signing secret (shown once). GET /v1/watches, GET /v1/watches/{id} (state, reason, deliveries, dead letters), DELETE /v1/watches/{id}.`,
  `- Timing: ingestion runs at each release instant of the publisher calendar (GET /v1/calendar) and re-polls the publisher (every ${UNTIL_NEW.everyMs / 1000} s, at most ${UNTIL_NEW.attempts} times) until the new figure is out, so a delivery leaves within about a minute of the publisher's release; a run 15 minutes later catches a publisher later than that (FRED posts the H.10's FX up to 30 minutes after it).`,
  '- When ingestion changes what the path answers (a new figure, a revision), the answer is POSTed to the URL: {"type": "watch.release", "timestamp", "watch_id", "path", "etag", "credits_charged", "release", "data": <the GET answer>}, with webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks; verify with the standardwebhooks package and the secret).',
  "- Each delivery is charged once, the route's price in credits, only when your receiver answers 2xx; retries of a delivery (same webhook-id) are never charged again. Failed deliveries are retried with exponential backoff for about 24 h, then dead-lettered; a watch whose deliveries keep dying is disabled, and a key without credits has its watches paused (the reason is on the watch; nothing unpaid is sent).",
  '- Receivers: https on a public address (private, loopback, link-local and metadata addresses are refused when the watch is created and at every delivery).',
  '',
];

const GLOSSARY = [
  '## Observation fields',
  '- instrument, value, unit: what was measured, the figure, its unit.',
  '- as_of (YYYY-MM-DD): the date the value describes; observed_at: the instant it describes (a stated time, else the end of the day, week, month or year; null for projections; see "observed_at and published_at").',
  '- freshness_class: eod (daily close), weekly, monthly, decree (administered), intraday, delayed.',
  '- quality: official (as published), derived (computed here from official inputs; derived: true), indicative (licensed quote), delayed.',
  '- source {name, series_id, url}, license_tag: who published it and under which license.',
  '- provenance {retrieved_at, cache_hit, cache_ttl_s}, and on a latest figure (price, prices, fx, spreads) stale (its as_of lags today by more than its cadence allows: eod 10 days, weekly 14, monthly 62; null without a cadence) and expected_next_as_of (the as_of the next release should carry); published_at: when the publisher released it (its calendar, holiday shifts included); next_release_at: its next scheduled release.',
  '- attributes: named parts of multi-field records; {} when none. Unknown values are null, never missing. At a past instant they add as_known_at and known_from (when the value became known).',
  '',
  '## Point in time (as_known_at)',
  "Every data route takes as_known_at (ISO 8601, seconds and offset): only figures published by then answer, in their value then; staleness, spreads and the decision gate are judged then. E.g. /v1/inventory/eia/crude_ex_spr?as_known_at=2026-02-11T15:29:00Z: the week before that day's 10:30 ET report.",
  "An instant before a series' first publication is 404 NO_DATA with details.first_known_from; an instant in the future or a malformed one is 400 INVALID_PARAMETER, before any payment.",
  '',
  '## Errors',
  'Every error is {"error": {"code", "message", "retryable", "request_id", "details"}}; nothing is charged for an error.',
  '- 400 INVALID_PARAMETER (details.issues lists each problem, a query parameter the route does not take included, with the ones it takes); 404 UNKNOWN_INSTRUMENT / UNKNOWN_SERIES / UNKNOWN_SECTOR / UNKNOWN_ROOT (details.valid lists the values), checked before any payment.',
  '- 402 PAYMENT_REQUIRED / INVALID_PAYMENT (x402), QUOTA_EXCEEDED (Pro); 401 INVALID_API_KEY; 413 PAYLOAD_TOO_LARGE; 429 RATE_LIMITED.',
  '- 502 FACILITATOR_UNAVAILABLE (nothing charged), 503 NO_DATA (retryable), 504 SETTLEMENT_PENDING (retry with the same payment). At a past instant NO_DATA is a 404 with first_known_from.',
  '',
  '## Limits',
  '- GET /v1/prices takes up to 30 codes; GET /v1/history/{code} pages at most 1000 points (default 365; pass next as cursor).',
  '',
];

const routeSection = (baseUrl: string, r: RouteDef, example: unknown, config: DocsConfig) => [
  `### ${r.method} ${r.path}`,
  `${r.mcp?.description ?? r.summary} Price: ${priceText(r, config)}.`,
  ...[...argsOf(r.params).map((a) => ({ ...a, in: 'path' })), ...argsOf(r.query).map((a) => ({ ...a, in: 'query' }))].map(
    (a) => `- ${a.name} (${a.in}${a.required ? ', required' : ''})${a.description ? `: ${a.description}` : ''}`,
  ),
  r.method === 'GET' ? `Example: curl -s '${baseUrl}${examplePath(r)}'` : `Example: curl -s -X ${r.method} '${baseUrl}${examplePath(r)}'`,
  ...(example === undefined ? [] : ['Example response (served by this deployment):', '```json', JSON.stringify(example), '```']),
  '',
];

/**
 * Pure: the full agent reference.
 * @param examples real responses of some routes (the discovery handler reads them from the store)
 */
const buildLlmsFullTxt = (baseUrl: string, config: DocsConfig, examples: Readonly<Partial<Record<string, unknown>>> = {}) =>
  [
    buildLlmsTxt(baseUrl, config),
    ...PAYMENT_FLOWS,
    '## Routes',
    '',
    ...ROUTES.flatMap((r) => routeSection(baseUrl, r, examples[r.id], config)),
    ...GLOSSARY,
    buildMethodsText(),
  ].join('\n');

/**
 * Pure: the agent skill (Agent Skills format: front matter name + description, body under 500 lines).
 * Its examples register the network this deployment is paid on: a client registered for another
 * network throws "No network/scheme registered" before paying.
 */
const buildSkillMd = (baseUrl: string, config: DocsConfig) =>
  [
    '---',
    'name: commodity-data',
    'description: >-',
    '  Fetch primary-source commodity data (EIA, FRED, World Bank, CFTC, USDA, USGS): latest prices, history, inventories with',
    '  surprise, managed-money positioning, spreads, WASDE balance sheets, crop progress, export sales, minerals, FX, sector',
    '  snapshots and decision packs. Use when a task needs a sourced commodity figure; each call is paid (x402 USDC or Pro credits).',
    '---',
    '',
    '# Commodity data',
    '',
    '## When to use',
    '- You need a commodity price, inventory, positioning or fundamentals figure with its source, date and license.',
    '- Not for real-time exchange futures: curves are stubs unless the operator licensed a provider.',
    '',
    '## How',
    `1. Free: GET ${baseUrl}/v1/catalog lists instruments, units and the price of every route; GET ${baseUrl}/health shows source freshness.`,
    '2. Call a paid route. Without payment it answers 402 with the payment requirements.',
    '3. Pay with an x402 client and retry, or send a Pro key.',
    '',
    '## Worked example: x402 (v2 client)',
    '```ts',
    "import { wrapFetchWithPayment, x402Client } from '@x402/fetch';",
    "import { registerExactEvmScheme } from '@x402/evm/exact/client';",
    'const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }));',
    `const res = await pay('${baseUrl}/v1/price/CL'); // 402 -> signs -> retries with PAYMENT-SIGNATURE`,
    "const receipt = res.headers.get('PAYMENT-RESPONSE'); // base64 {success, transaction, network, payer}",
    '```',
    'x402 v1 clients (x402-fetch) send X-PAYMENT and read X-PAYMENT-RESPONSE; both are accepted. They need the v1 body of the 402: pass the header X402-Version: 1, e.g. fetchWithPay(url, { headers: { "X402-Version": "1" } }).',
    '',
    '## Worked example: x402 batch-settlement (many calls, one deposit)',
    'When a 402 lists scheme "batch-settlement" (accepts[1]), one deposit pays many calls with vouchers that need no transaction each.',
    '```ts',
    "import { wrapFetchWithPayment, x402Client } from '@x402/fetch';",
    "import { toClientEvmSigner } from '@x402/evm';",
    "import { BatchSettlementEvmScheme, InMemoryClientChannelStorage } from '@x402/evm/batch-settlement/client';",
    'const scheme = new BatchSettlementEvmScheme(toClientEvmSigner(account, publicClient), { storage: new InMemoryClientChannelStorage() });',
    `const pay = wrapFetchWithPayment(fetch, new x402Client().register('${config.X402_NETWORK}', scheme)); // this deployment's network`,
    `for (const code of ['CL', 'NG', 'HO']) await pay('${baseUrl}/v1/price/' + code); // one deposit, then a voucher per call`,
    '```',
    'Keep the channel storage between runs (a file or database storage) so the client resumes its channel instead of depositing again.',
    '',
    '## Worked example: Pro key',
    '```sh',
    `curl -s -H 'Authorization: Bearer cds_live_...' '${baseUrl}/v1/history/CL?frequency=weekly&limit=52'`,
    '```',
    '',
    '## Worked example: pay only for news',
    '```sh',
    `curl -si -H 'Authorization: Bearer cds_live_...' '${baseUrl}/v1/inventory/eia' | grep -i etag   # ETag: "…"`,
    `curl -si -H 'Authorization: Bearer cds_live_...' -H 'If-None-Match: "…"' '${baseUrl}/v1/inventory/eia'   # 304 while unchanged: free`,
    `curl -s -X POST -H 'Authorization: Bearer cds_live_...' -H 'content-type: application/json' -d '{"path":"/v1/inventory/eia","url":"https://agent.example/hook"}' '${baseUrl}/v1/watches'`,
    '```',
    "The watch's secret verifies each delivery: new Webhook(secret).verify(body, headers) (npm standardwebhooks). A delivery costs the route's credits, once, on your 2xx.",
    'Deliveries leave at the release: ingestion runs at each release instant (GET /v1/calendar) and re-polls the publisher until the new figure is out, so expect one within about a minute of it.',
    'Over MCP (Pro key in the Authorization header of the POST): create_watch {"path": "/v1/inventory/eia", "url": "https://agent.example/hook"}, then list_watches, get_watch {"id"}, delete_watch {"id"}.',
    '',
    '## Worked example: MCP',
    `Connect an MCP client to ${baseUrl}/api/mcp (Streamable HTTP). tools/list gives every tool with its price; call get_price {"code":"CL"}.`,
    'Unpaid calls return the PaymentRequired object; retry with params._meta["x402/payment"], or send Authorization: Bearer on the POST.',
    '',
    '## Routes',
    ...PAID_ROUTES.map((r) => `- ${r.method} ${examplePath(r)}: ${r.summary} (${priceText(r, config)})`),
    '',
    `Full reference: ${baseUrl}/llms-full.txt`,
    '',
  ].join('\n');

const TERMS_TXT = [
  'Terms of use',
  '',
  'Data and licenses',
  '- EIA, FRED (Federal Reserve H.10 and other US government series), CFTC, USDA (NASS, FAS, WASDE) and USGS figures are works of the',
  '  US government and in the public domain in the United States.',
  '- World Bank Commodity Price Data ("Pink Sheet") is licensed CC BY 4.0. Attribution: "Source: World Bank, Commodity Price Data (The Pink Sheet)".',
  '- Figures marked quality "derived" are computed by this service from the figures above; figures marked synthetic are sample data, not publications.',
  '- Each observation names its source and license_tag.',
  '',
  'No warranty; not advice',
  '- Observations are provided as published, without warranty of accuracy, completeness or timeliness, for information only.',
  '- Decision packs are mechanical rules over published data and are not investment advice.',
  '',
  'Payment',
  '- Prices are per call as listed in /v1/catalog and /openapi.json. A call that fails (status >= 400) is not charged.',
  '- x402 payments settle on-chain and are final once the data is delivered; a pending settlement is delivered on retry of the same request.',
  '- Pro credits: 1 credit = 0.01 USD of list price; a plan grants its credits per period, and unused credits expire at the end of the period.',
  '',
].join('\n');

export { buildLlmsTxt, buildLlmsFullTxt, buildSkillMd, examplePath, TERMS_TXT };
