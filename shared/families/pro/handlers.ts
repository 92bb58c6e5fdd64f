/**
 * The Pro routes: the plans page, the card checkout, Stripe's webhook and the page that shows a
 * bought key once. All free; the checkout and webhook need Stripe configured, the rest never crash without it.
 */
import { BadRequestError } from '../../errors/errors';
import type { FamilyHandlers } from '../../http/types';
import { checkoutEnabled, createCheckout, handleWebhook, planOf, revealCheckoutKey } from '../../pro/checkout';
import { DynamoCreditLedger } from '../../pro/credit-ledger';
import { PLAN_IDS } from '../../pro/plans';
import { paymentStatus } from '../../payment/exact/payment-status';
import type { Services } from '../../services';
import { baseUrlOf } from '../discovery/base-url';
import { checkoutOffPage, keyPage, noSessionPage, pendingPage, plansPage, shownPage } from './pages';

/**
 * The whole credit table (checkout bookkeeping included), on the services' store: the shared services
 * hold only the lane's part, so the data functions do not carry checkout code.
 */
const ACCOUNTS = new WeakMap<Services, DynamoCreditLedger>();
const accountsOf = (services: Services): DynamoCreditLedger => {
  let accounts = ACCOUNTS.get(services);
  if (!accounts) {
    if (!services.doc) throw new Error('the Pro routes need the DynamoDB client (services.doc)');
    accounts = new DynamoCreditLedger(services.doc, services.config.CREDITS_TABLE);
    ACCOUNTS.set(services, accounts);
  }
  return accounts;
};

const proHandlers: FamilyHandlers<'pro'> = Object.freeze({
  'GET /pro': async ({ services }) => ({
    body: plansPage({ checkout: checkoutEnabled(services.config), contact: services.config.OPERATOR_CONTACT }),
    headers: { 'cache-control': 'no-store' },
  }),
  'POST /pro/checkout': async (req) => {
    const plan = planOf(req.rawBody, req.headers['content-type']);
    if (!plan) throw new BadRequestError('INVALID_PARAMETER', `plan must be one of ${PLAN_IDS.join(', ')}`, { valid: PLAN_IDS });
    const session = await createCheckout(req.services.config, plan, baseUrlOf(req));
    // A browser form follows the 303 to Stripe; an API client reads the URL from the body.
    return { status: 303, headers: { location: session.url }, body: session };
  },
  'POST /pro/webhook': async ({ services, rawBody, headers }) => {
    try {
      return { body: await handleWebhook(services.config, rawBody ?? '', headers['stripe-signature'], accountsOf(services), services.now()) };
    } catch (err) {
      if ((err as { type?: string }).type === 'StripeSignatureVerificationError') {
        throw new BadRequestError('INVALID_SIGNATURE', 'the Stripe-Signature header does not match the body', {});
      }
      throw err;
    }
  },
  'GET /v1/payments/{id}': async ({ params, services }) => ({
    body: await paymentStatus(services.payment.ledger, params.id),
    headers: { 'cache-control': 'no-store' },
  }),
  'GET /pro/success': async ({ query, services }) => {
    const headers = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
    // Pages for people, not errors for programs (those are JSON): without Stripe no session will ever be
    // confirmed ("being confirmed, reload" was forever), and a visit without Stripe's link was raw JSON.
    if (!checkoutEnabled(services.config)) return { headers, body: checkoutOffPage(services.config.OPERATOR_CONTACT) };
    if (query.session_id === undefined) return { headers, body: noSessionPage() };
    const shown = await revealCheckoutKey(query.session_id, accountsOf(services), services.now());
    const body = shown.ok ? keyPage(shown.key, shown.hint) : shown.reason === 'shown' ? shownPage() : pendingPage();
    return { status: shown.ok || shown.reason === 'shown' ? 200 : 202, headers, body };
  },
});

export { proHandlers };
