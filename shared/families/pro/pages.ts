/** The Pro pages people see: plans (with or without online checkout) and the one-time key page. */
import { PLANS } from '../../pro/plans';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">` +
  `<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}` +
  `code{background:#f3f3f3;padding:.1rem .3rem;word-break:break-all}.plan{border:1px solid #ccc;border-radius:.5rem;padding:1rem;margin:1rem 0}</style></head>` +
  `<body>${body}</body></html>`;

const plansPage = (checkout: boolean): string =>
  page(
    'Pro keys: commodity data service',
    `<h1>Pro keys</h1><p>A Pro key pays for calls with prepaid credits instead of x402: send <code>Authorization: Bearer &lt;key&gt;</code>. ` +
      `1 credit = 0.01 USD of a route's list price (a 0.02 USD route costs 2 credits). Every answer says what is left.</p>` +
      Object.values(PLANS)
        .map(
          (p) =>
            `<div class="plan"><h2>${p.id === 'monthly' ? 'Monthly' : 'Yearly'}: ${p.priceUsd} USD</h2><p>${p.creditsPerMonth.toLocaleString('en-US')} credits per month, ` +
            `for ${p.months === 1 ? 'one month, renewed monthly' : 'twelve months, renewed yearly'}. Unused credits do not carry over to the next month.</p>` +
            (checkout
              ? `<form method="post" action="/pro/checkout"><input type="hidden" name="plan" value="${p.id}"><button type="submit">Buy with a card</button></form>`
              : '') +
            `</div>`,
        )
        .join('') +
      (checkout
        ? '<p>Payment is handled by Stripe. Your key is shown once, right after payment.</p>'
        : '<p><strong>Online checkout is not available on this deployment.</strong> Ask the operator for a key; operators issue them with ' +
          '<code>npm run keys -- issue --plan monthly</code>.</p>') +
      '<p><a href="/llms.txt">API reference for agents</a> · <a href="/openapi.json">OpenAPI</a> · <a href="/terms.txt">Terms</a></p>',
  );

const keyPage = (key: string, hint: string): string =>
  page(
    'Your Pro key',
    `<h1>Your Pro key</h1><p>This is the only time the key is shown. Store it now (a password manager or a secret store).</p>` +
      `<p><code id="key">${escapeHtml(key)}</code></p><p>It appears later only as <code>${escapeHtml(hint)}</code>. Use it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>`,
  );

const shownPage = (): string =>
  page(
    'Key already shown',
    '<h1>This key was already shown</h1><p>For safety a key is shown only once. If you lost it, ask the operator to rotate it ' +
      '(<code>npm run keys -- rotate &lt;id&gt;</code>): the new key keeps your plan and credits and the old one stops working.</p>',
  );

const pendingPage = (): string =>
  page('Payment being confirmed', '<h1>Payment being confirmed</h1><p>Stripe has not confirmed the payment yet. Reload this page in a few seconds.</p>');

export { plansPage, keyPage, shownPage, pendingPage };
