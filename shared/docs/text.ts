/**
 * The text discovery documents (llms.txt, llms-full.txt, SKILL.md, terms.txt) and the agent
 * card, generated from the route table and the catalog.
 */
import { INSTRUMENTS } from '../catalog/instruments';
import { INVENTORY_KEYS } from '../catalog/inventory';
import { FREE_ROUTES, PAID_ROUTES, usdToCredits } from '../routes';
import { buildMethodsText } from './methods';

const routeLine = (r: (typeof PAID_ROUTES)[number]) => `- GET ${r.path} — ${r.summary} — ${r.priceUsd} USD (${usdToCredits(r.priceUsd!)} credits)`;

/** Pure: the short agent briefing. */
const buildLlmsTxt = (baseUrl: string) =>
  [
    '# Commodity data service',
    '',
    '> Primary-source commodity observations (EIA, FRED, World Bank, CFTC, USDA, USGS) for software agents.',
    '> Pay each call in USDC with x402 (HTTP 402, then retry with X-PAYMENT) or with a Pro key (Authorization: Bearer).',
    '',
    `Base URL: ${baseUrl}`,
    '',
    '## Paid routes',
    ...PAID_ROUTES.map(routeLine),
    '',
    '## Free routes',
    ...FREE_ROUTES.map((r) => `- GET ${r.path} — ${r.summary}`),
    '',
    `Instruments: ${INSTRUMENTS.map((i) => i.code).join(', ')}. Codes are case-insensitive (cl = CL).`,
    `Inventory keys: ${INVENTORY_KEYS.join(', ')}.`,
    '',
  ].join('\n');

/** Pure: the full agent reference (adds the observation contract and the methods). */
const buildLlmsFullTxt = (baseUrl: string) =>
  [
    buildLlmsTxt(baseUrl),
    '## Observation',
    'Every observation has: instrument, value, unit, as_of (YYYY-MM-DD), observed_at, freshness_class',
    '(eod|weekly|monthly|decree|intraday|delayed), quality (official|indicative|derived|delayed), derived,',
    'source {name, series_id, url}, license_tag, provenance {retrieved_at, cache_hit, cache_ttl_s},',
    'published_at, next_release_at and attributes. Unknown values are null, never missing.',
    '',
    '## History',
    'GET /v1/history/{code}?start=YYYY-MM-DD&end=YYYY-MM-DD&limit=1..1000&frequency=native|weekly|monthly&cursor=<next>.',
    'Without end the window ends at the latest observation; without start it begins one year earlier.',
    'weekly/monthly keep the last observation of each ISO week / calendar month. The body says total, truncated',
    'and next (pass it as cursor), and summarises the whole window: first, last, min, max, change.',
    '',
    '## Errors',
    '{"error": {"code", "message", "retryable", "request_id", "details"}}. Bad input is 400 INVALID_PARAMETER;',
    'unknown codes 404 UNKNOWN_INSTRUMENT/UNKNOWN_SERIES/UNKNOWN_SECTOR; nothing is charged for an error.',
    '',
    buildMethodsText(),
  ].join('\n');

/** Pure: the agent skill manifest. */
const buildSkillMd = (baseUrl: string) =>
  [
    '---',
    'name: commodity-data',
    'description: Primary-source commodity prices, inventories, positioning, spreads and fundamentals, paid per call.',
    '---',
    '',
    '# Commodity data',
    '',
    `Call ${baseUrl}/v1/catalog first (free) to see instruments and prices. Then call a paid route; on HTTP 402,`,
    'pay with an x402 client (USDC on Base) and retry with the X-PAYMENT header.',
    '',
    ...PAID_ROUTES.map(routeLine),
    '',
  ].join('\n');

/** Pure: the agent card. */
const buildAgentCard = (baseUrl: string) => ({
  name: 'Commodity data service',
  description: 'Primary-source commodity observations for agents, paid per call (x402 USDC or Pro credits).',
  url: baseUrl,
  version: '0.1.0',
  documentation: { llms: `${baseUrl}/llms.txt`, openapi: `${baseUrl}/openapi.json`, skill: `${baseUrl}/SKILL.md` },
  payments: { x402: `${baseUrl}/.well-known/x402.json` },
  mcp: { endpoint: `${baseUrl}/api/mcp`, transport: 'streamable-http' },
  skills: PAID_ROUTES.map((r) => ({ id: r.id, description: r.summary, price_usd: r.priceUsd })),
});

const TERMS_TXT = [
  'Terms of use',
  '',
  'Data is republished from primary sources under their licenses: US government works (EIA, FRED/H.10,',
  'CFTC, USDA, USGS) are public domain; World Bank Commodity Price Data is CC BY 4.0 (attribution: World Bank).',
  'Each observation names its source and license_tag. Prices are per call as listed in /v1/catalog; a call',
  'that fails (status >= 400) is not charged. No warranty: observations are provided as published, for',
  'information only, and are not investment advice.',
  '',
].join('\n');

export { buildLlmsTxt, buildLlmsFullTxt, buildSkillMd, buildAgentCard, TERMS_TXT };
