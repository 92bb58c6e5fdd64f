/**
 * GET /: the page for people. What the service is, each instrument with its latest value and
 * freshness, every route with its price, how to pay, and links to every document. Built from the
 * route table, the catalog and the store; nothing on it is typed twice.
 */
import { INSTRUMENTS } from '../../catalog/instruments';
import { SERVICE_NAME, SERVICE_SUMMARY } from '../../docs/identity';
import type { Observation } from '../../observation/schema';
import { PAID_ROUTES, ROUTES } from '../../routes/table';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const DOCUMENTS = [
  '/llms.txt',
  '/llms-full.txt',
  '/openapi.json',
  '/SKILL.md',
  '/.well-known/agent.json',
  '/.well-known/x402',
  '/.well-known/mcp/server.json',
  '/v1/catalog',
  '/v1/calendar',
  '/health',
  '/pro',
  '/terms.txt',
];

/** Pure: the home page from the latest observation of each live instrument (null when none is stored). */
const buildHomePage = (latest: ReadonlyMap<string, Observation | null>): string => {
  const rows = INSTRUMENTS.filter((i) => i.sourceId)
    .map((i) => {
      const o = latest.get(i.code) ?? null;
      return `<tr><td><a href="/v1/price/${i.code}">${i.code}</a></td><td>${esc(i.meaning)}</td><td>${o ? `${o.value} ${esc(o.unit)}` : '—'}</td><td>${o ? o.as_of : 'not stored yet'}</td><td>${i.freshness}</td></tr>`;
    })
    .join('');
  const routes = PAID_ROUTES.map((r) => `<tr><td><code>${r.method} ${esc(r.path)}</code></td><td>${esc(r.summary)}</td><td>${r.priceUsd} USD</td></tr>`).join(
    '',
  );
  const links = DOCUMENTS.filter((p) => p === '/pro' || ROUTES.some((r) => r.path === p))
    .map((p) => `<li><a href="${p}">${p}</a></li>`)
    .join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,"><title>${esc(SERVICE_NAME)}</title>` +
    '<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left}code{background:#f3f3f3;padding:0 .2rem}</style></head><body>' +
    `<h1>${esc(SERVICE_NAME)}</h1><p>${esc(SERVICE_SUMMARY)}</p>` +
    '<h2>How to pay</h2><ul><li><strong>x402 (USDC):</strong> call a paid route, read the 402, sign the payment and retry with <code>PAYMENT-SIGNATURE</code> (x402 v2) or <code>X-PAYMENT</code> (v1). Failed calls are never charged.</li>' +
    '<li><strong>Pro key (credits):</strong> send <code>Authorization: Bearer &lt;key&gt;</code>; 1 credit = 0.01 USD of list price. <a href="/pro">Plans and checkout</a>.</li>' +
    '<li><strong>MCP:</strong> connect an MCP client to <code>/api/mcp</code> (Streamable HTTP); every paid route is a tool.</li></ul>' +
    `<h2>Instruments</h2><table><thead><tr><th>code</th><th>what</th><th>latest</th><th>as of</th><th>freshness</th></tr></thead><tbody>${rows}</tbody></table>` +
    `<h2>Routes and prices</h2><table><thead><tr><th>route</th><th>what</th><th>price</th></tr></thead><tbody>${routes}</tbody></table>` +
    `<h2>Documents</h2><ul>${links}</ul></body></html>`
  );
};

export { buildHomePage };
