/**
 * GET /: the page for people. What the service sells (each instrument with its unit, cadence, latest
 * as_of and whether it is stale, never the paid figure itself), what each route costs under this
 * configuration, how to pay, which data /health reports stale, and links to every document. Built
 * from the route table, the catalog and the store; nothing on it is typed twice.
 */
import { INSTRUMENTS, type FreshnessClass } from '../../catalog/instruments';
import type { Config } from '../../config';
import { cardTable, esc, htmlPage } from '../../docs/html';
import { SERVICE_NAME, SERVICE_SUMMARY } from '../../docs/identity';
import { isChargeable, PAID_ROUTES, ROUTES } from '../../routes/table';
import type { HealthStatus, SourceFreshness } from '../freshness';

const DOCUMENTS = [
  '/llms.txt',
  '/llms-full.txt',
  '/openapi.json',
  '/SKILL.md',
  '/.well-known/agent-card.json',
  '/.well-known/x402',
  '/.well-known/mcp/server.json',
  '/v1/catalog',
  '/v1/calendar',
  '/health',
  '/pro',
  '/terms.txt',
];

const CADENCE: Readonly<Record<FreshnessClass, string>> = {
  eod: 'daily (end of day)',
  weekly: 'weekly',
  monthly: 'monthly',
  decree: 'when decreed',
  intraday: 'intraday',
  delayed: 'delayed',
};

interface HomeData {
  /** The latest stored as_of of each live instrument (null: nothing stored yet). */
  latestAsOf: ReadonlyMap<string, string | null>;
  /** /health's overall status and its sources. */
  status: HealthStatus;
  sources: readonly SourceFreshness[];
  config: Pick<Config, 'INDICATIVE_FUTURES'>;
}

/** What /health says is stale, in words: each stale source, what it feeds and why. */
const staleNotice = ({ status, sources }: Pick<HomeData, 'status' | 'sources'>): string => {
  const stale = sources.filter((s) => s.stale);
  if (status === 'ok' || stale.length === 0) return '';
  return (
    `<div class="notice" id="stale"><p><strong>Some data is stale.</strong> <a href="/health">/health</a> reports <code>${esc(status)}</code>: ` +
    `${stale.length} of ${sources.length} sources are behind.</p><ul>` +
    stale.map((s) => `<li><strong>${esc(s.name)}</strong> (${esc(s.feeds)}): ${esc(s.stale_reason ?? 'stale')}</li>`).join('') +
    '</ul></div>'
  );
};

/** Pure: the home page. */
const buildHomePage = (data: HomeData): string => {
  const staleSources = new Set(data.sources.filter((s) => s.stale).map((s) => s.id));
  const instruments = INSTRUMENTS.filter((i) => i.sourceId).map((i) => {
    const asOf = data.latestAsOf.get(i.code) ?? null;
    const stale = staleSources.has(i.sourceId!);
    return [
      `<code>${esc(i.code)}</code>`,
      esc(i.meaning),
      esc(i.unit),
      CADENCE[i.freshness],
      asOf ?? 'not stored yet',
      asOf === null ? '—' : stale ? '<span class="stale">stale</span>' : 'current',
    ];
  });
  const routes = PAID_ROUTES.map((r) => [
    `<code>${r.method} ${esc(r.path)}</code>`,
    esc(r.summary),
    isChargeable(r, data.config) ? `${r.priceUsd} USD` : 'free while stubbed',
  ]);
  const links = DOCUMENTS.filter((p) => p === '/pro' || ROUTES.some((r) => r.path === p))
    .map((p) => `<li><a href="${p}">${p}</a></li>`)
    .join('');
  return htmlPage(
    SERVICE_NAME,
    `<h1>${esc(SERVICE_NAME)}</h1><p>${esc(SERVICE_SUMMARY)}</p>` +
      staleNotice(data) +
      '<h2>How to pay</h2><ul><li><strong>x402 (USDC):</strong> call a paid route, read the 402, sign the payment and retry with <code>PAYMENT-SIGNATURE</code> (x402 v2) or <code>X-PAYMENT</code> (v1). Failed calls are never charged.</li>' +
      '<li><strong>Pro key (credits):</strong> send <code>Authorization: Bearer &lt;key&gt;</code>; 1 credit = 0.01 USD of list price. <a href="/pro">Plans and checkout</a>.</li>' +
      '<li><strong>MCP:</strong> connect an MCP client to <code>/api/mcp</code> (Streamable HTTP); every paid route is a tool.</li></ul>' +
      '<h2>Instruments</h2><p>What each price route sells: the figure itself is paid (<code>GET /v1/price/{code}</code>).</p>' +
      cardTable(['code', 'instrument', 'unit', 'cadence', 'latest as of', 'status'], instruments) +
      '<h2>Routes and prices</h2>' +
      cardTable(['route', 'what', 'price per call'], routes) +
      `<h2>Documents</h2><ul>${links}</ul>`,
  );
};

export { buildHomePage };
export type { HomeData };
