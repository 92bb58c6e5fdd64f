/** The Pro pages people see: plans (with or without online checkout) and the pages of a bought key. */
import { esc, htmlPage } from '../../docs/html';
import { PLANS } from '../../pro/plans';

const HOME_LINK =
  '<p><a href="/">Home</a> · <a href="/llms.txt">API reference for agents</a> · <a href="/openapi.json">OpenAPI</a> · <a href="/terms.txt">Terms</a></p>';

/** How to reach the operator: a mailto link for an email address, else the configured https URL. */
const contactLink = (contact: string): string => {
  const href = contact.includes('@') && !contact.includes('://') ? `mailto:${contact}` : contact;
  return `<a href="${esc(href)}">${esc(contact)}</a>`;
};

/**
 * Pure: the plans page.
 * @param checkout whether Stripe checkout is configured
 * @param contact the operator's contact (OPERATOR_CONTACT), if configured
 */
const plansPage = ({ checkout, contact }: { checkout: boolean; contact?: string | undefined }): string =>
  htmlPage(
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
        : '<p><strong>Online checkout is not available on this deployment.</strong> ' +
          (contact
            ? `To buy a key, write to the operator: ${contactLink(contact)}.`
            : 'This deployment has published no operator contact; pay per call with x402 instead (see the home page).') +
          ' Operators issue keys with <code>npm run keys -- issue --plan monthly</code>.</p>') +
      HOME_LINK,
  );

/** Pure: the one-time page of a bought key. */
const keyPage = (key: string, hint: string): string =>
  htmlPage(
    'Your Pro key',
    `<h1>Your Pro key</h1><p>This is the only time the key is shown. Store it now (a password manager or a secret store).</p>` +
      `<p><code id="key">${esc(key)}</code></p><p>It appears later only as <code>${esc(hint)}</code>. Use it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>` +
      HOME_LINK,
  );

/** Pure: the page of a key that was already shown. */
const shownPage = (): string =>
  htmlPage(
    'Key already shown',
    '<h1>This key was already shown</h1><p>For safety a key is shown only once. If you lost it, ask the operator to rotate it ' +
      '(<code>npm run keys -- rotate &lt;id&gt;</code>): the new key keeps your plan and credits and the old one stops working.</p>' +
      HOME_LINK,
  );

/** Pure: the page of a checkout Stripe has not confirmed yet (202). */
const pendingPage = (): string =>
  htmlPage(
    'Payment being confirmed',
    `<h1>Payment being confirmed</h1><p>Stripe has not confirmed the payment yet. Reload this page in a few seconds.</p>${HOME_LINK}`,
  );

/** Pure: /pro/success on a deployment without card checkout: no payment will ever be confirmed here. */
const checkoutOffPage = (contact?: string): string =>
  htmlPage(
    'Checkout not configured',
    '<h1>Card checkout is not configured on this deployment</h1><p>No card payment can be confirmed here, so no key will appear on this page. ' +
      (contact ? `To buy a key, write to the operator: ${contactLink(contact)}.` : 'Pay per call with x402 instead (see the home page).') +
      `</p>${HOME_LINK}`,
  );

/** Pure: /pro/success opened without the checkout session Stripe's link carries. */
const noSessionPage = (): string =>
  htmlPage(
    'No checkout session',
    '<h1>No checkout session in this link</h1><p>This page shows a Pro key once, when Stripe sends you back to it after payment ' +
      '(its link carries <code>session_id</code>). To buy a key, start from <a href="/pro">the plans page</a>.</p>' +
      HOME_LINK,
  );

export { plansPage, keyPage, shownPage, pendingPage, checkoutOffPage, noSessionPage };
