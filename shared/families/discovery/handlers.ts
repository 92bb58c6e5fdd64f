/**
 * Free discovery routes: health, catalog, calendar and the generated documents; plus the
 * `$default` route, which answers every unknown path with a JSON 404.
 */
import { buildOpenApi } from '../../docs/openapi';
import { buildAgentCard } from '../../docs/agent-card';
import { buildLlmsFullTxt, buildLlmsTxt, buildSkillMd, TERMS_TXT } from '../../docs/text';
import type { FamilyHandlers, HandlerRequest } from '../../http/types';
import { loadLatest } from '../price/load';
import { computedOnce } from '../computed-cache';
import { loadFundamentalsCoverage } from '../fundamentals/load';
import { INSTRUMENTS } from '../../catalog/instruments';
import { baseUrlOf } from './base-url';
import { buildHomePage } from './home';
import { buildCalendar } from './calendar';
import { buildCatalog } from './catalog';
import { buildX402Catalog } from './x402-catalog';
import { offersFor } from '../../payment/lane-offers';
import { isChargeable, PAID_ROUTES } from '../../routes/table';
import { loadFreshness, overallStatus } from '../freshness';

/** The site icon: a rising price line (SVG, which browsers take at /favicon.ico by its content type). */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f3b57"/>' +
  '<path d="M7 23l6-8 5 4 7-10" fill="none" stroke="#f2c14e" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>';

const health = async ({ services }: Pick<HandlerRequest, 'services'>) => {
  const sources = await loadFreshness(services);
  return {
    body: {
      status: overallStatus(sources),
      checked_at: services.now().toISOString(),
      stale_sources: sources.filter((s) => s.stale).map((s) => s.id),
      sources,
    },
  };
};

/** The payment catalog: per chargeable route, the options the payment lanes offer now (as its 402 states them). */
const x402Catalog = async (req: Pick<HandlerRequest, 'services' | 'domainName'>) => {
  const { config, payment } = req.services;
  await payment.receiptsReady?.();
  const chargeable = PAID_ROUTES.filter((r) => isChargeable(r, config));
  const offers = new Map(await Promise.all(chargeable.map(async (r) => [r.id, await offersFor(r, r.path, payment)] as const)));
  const signing = { ...(payment.receipts ? { signer: payment.receipts } : {}), previousKids: payment.previousReceiptKids ?? [] };
  return { body: buildX402Catalog(config, baseUrlOf(req), (r) => offers.get(r.id) ?? [], signing) };
};

const discoveryHandlers: FamilyHandlers<'discovery'> = Object.freeze({
  'GET /': async ({ services }) => {
    const live = INSTRUMENTS.filter((i) => i.sourceId);
    const [latest, sources] = await Promise.all([
      Promise.all(live.map(async (i) => [i.code, (await loadLatest(services, i.code).catch(() => null))?.as_of ?? null] as const)),
      loadFreshness(services),
    ]);
    return { body: buildHomePage({ latestAsOf: new Map(latest), status: overallStatus(sources), sources, config: services.config }) };
  },
  'GET /health': health,
  'GET /v1/catalog': async ({ services }) => {
    const live = INSTRUMENTS.filter((i) => i.sourceId);
    const [latest, sources, fundamentals] = await Promise.all([
      Promise.all(live.map(async (i) => [i.code, (await loadLatest(services, i.code))?.as_of ?? null] as const)),
      loadFreshness(services),
      // Four report loads: computed at most once a minute (the free catalog must not load the store per call).
      computedOnce(services, 'fundamentals-coverage', () => loadFundamentalsCoverage(services)),
    ]);
    return { body: buildCatalog(services.config, new Map(latest), new Set(sources.filter((s) => s.stale).map((s) => s.id)), fundamentals) };
  },
  'GET /v1/calendar': async ({ services }) => ({ body: buildCalendar(services.now()) }),
  'GET /llms.txt': async (req) => ({ body: buildLlmsTxt(baseUrlOf(req), req.services.config) }),
  'GET /llms-full.txt': async (req) => {
    // One real response, read from this deployment's store (none before the first ingestion).
    const price = await loadLatest(req.services, 'CL');
    return {
      body: buildLlmsFullTxt(
        baseUrlOf(req),
        req.services.config,
        price ? { 'GET /v1/price/{code}': price, 'GET /v1/fx/{pair}': (await loadLatest(req.services, 'EURUSD')) ?? undefined } : {},
      ),
    };
  },
  'GET /openapi.json': async (req) => ({
    body: buildOpenApi(baseUrlOf(req), req.services.config.PUBLIC_BASE_URL ?? '/', req.services.config.OPERATOR_CONTACT, req.services.config),
  }),
  'GET /SKILL.md': async (req) => ({ body: buildSkillMd(baseUrlOf(req), req.services.config) }),
  'GET /.well-known/agent-card.json': async (req) => ({ body: buildAgentCard(baseUrlOf(req), req.services.config) }),
  'GET /.well-known/agent.json': async (req) => ({ body: buildAgentCard(baseUrlOf(req), req.services.config) }),
  'GET /favicon.ico': async () => ({ body: FAVICON_SVG, headers: { 'cache-control': 'public, max-age=86400' } }),
  'GET /.well-known/x402.json': x402Catalog,
  'GET /.well-known/x402': x402Catalog,
  'GET /terms.txt': async () => ({ body: TERMS_TXT }),
});

export { discoveryHandlers };
