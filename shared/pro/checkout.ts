/**
 * Buying a Pro key with a card (SPEC.md "Lane 2"): Stripe Checkout in subscription mode through
 * the official `stripe` package, a signed webhook that records payments idempotently, and a key
 * shown exactly once. Only the key's hash is ever stored: the key is made when it is first shown.
 */
import Stripe from 'stripe';
import type { Config } from '../config';
import { ServiceUnavailableError } from '../errors/errors';
import type { DynamoCreditLedger } from './credit-ledger';
import { newKeyRecord } from './credit-ledger';
import { generateKey, hashKey, keyHint } from './keys';
import { PLAN_IDS, type PlanId } from './plans';

type StripeConfig = Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_WEBHOOK_SECRET' | 'STRIPE_PRICE_MONTHLY' | 'STRIPE_PRICE_YEARLY' | 'STRIPE_API_URL'>;

/** Whether this deployment sells keys online (else operators issue them with `npm run keys`). */
const checkoutEnabled = (c: StripeConfig): boolean =>
  Boolean(c.STRIPE_SECRET_KEY && c.STRIPE_WEBHOOK_SECRET && c.STRIPE_PRICE_MONTHLY && c.STRIPE_PRICE_YEARLY);

const clients = new Map<string, Stripe>();
/** One Stripe client per configuration (it keeps connections); a STRIPE_API_URL points it at another host. */
const stripeOf = (c: StripeConfig): Stripe => {
  const id = `${c.STRIPE_SECRET_KEY}|${c.STRIPE_API_URL ?? ''}`;
  let client = clients.get(id);
  if (!client) {
    const api = c.STRIPE_API_URL ? new URL(c.STRIPE_API_URL) : null;
    client = new Stripe(c.STRIPE_SECRET_KEY!, {
      maxNetworkRetries: 1,
      timeout: 10_000,
      ...(api
        ? { host: api.hostname, port: Number(api.port || (api.protocol === 'https:' ? 443 : 80)), protocol: api.protocol.replace(':', '') as 'http' | 'https' }
        : {}),
    });
    clients.set(id, client);
  }
  return client;
};

const unavailable = () =>
  new ServiceUnavailableError('CHECKOUT_UNAVAILABLE', 'card checkout is not configured on this deployment', {
    hint: 'an operator issues keys with: npm run keys -- issue --plan monthly',
  });

const priceOf = (c: StripeConfig, plan: PlanId) => (plan === 'monthly' ? c.STRIPE_PRICE_MONTHLY : c.STRIPE_PRICE_YEARLY)!;

/** The plan a checkout form or JSON body asks for. */
const planOf = (rawBody: string | null, contentType: string | undefined): PlanId | null => {
  const text = rawBody ?? '';
  let plan: unknown;
  try {
    plan = contentType?.includes('application/json') ? (JSON.parse(text) as { plan?: unknown }).plan : new URLSearchParams(text).get('plan');
  } catch {
    return null;
  }
  return PLAN_IDS.includes(plan as PlanId) ? (plan as PlanId) : null;
};

/** A Checkout Session in subscription mode; the success page gets the session id back. */
const createCheckout = async (c: StripeConfig, plan: PlanId, baseUrl: string): Promise<{ url: string; session_id: string }> => {
  if (!checkoutEnabled(c)) throw unavailable();
  const session = await stripeOf(c).checkout.sessions.create({
    mode: 'subscription',
    line_items: [{ price: priceOf(c, plan), quantity: 1 }],
    success_url: `${baseUrl}/pro/success?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${baseUrl}/pro`,
    metadata: { plan },
    subscription_data: { metadata: { plan } },
  });
  return { url: session.url!, session_id: session.id };
};

const isoOf = (epochSeconds: number | null | undefined) => (epochSeconds ? new Date(epochSeconds * 1000).toISOString() : null);

/**
 * Handles one webhook delivery. The signature is checked on the raw body; an event id handled
 * before changes nothing. The id is recorded last, once the event's effects are written (each is
 * idempotent), so a store failure in between leaves the event unrecorded: Stripe delivers it again
 * (it retries any answer but 2xx) and the retry does the work, instead of finding the id and
 * dropping a paid checkout.
 * @throws Stripe's signature error (answered 400), CHECKOUT_UNAVAILABLE (503) or a store error (500: Stripe retries)
 */
const handleWebhook = async (
  c: StripeConfig,
  rawBody: string,
  signature: string | undefined,
  credits: DynamoCreditLedger,
  now: Date,
): Promise<{ received: true; duplicate: boolean; handled: string }> => {
  if (!checkoutEnabled(c)) throw unavailable();
  const event = await stripeOf(c).webhooks.constructEventAsync(rawBody, signature ?? '', c.STRIPE_WEBHOOK_SECRET!);
  if (await credits.eventSeen(event.id)) return { received: true, duplicate: true, handled: event.type };
  const obj = event.data.object as unknown as Record<string, unknown>;
  switch (event.type) {
    case 'checkout.session.completed': {
      const plan = PLAN_IDS.includes((obj.metadata as Record<string, string> | null)?.plan as PlanId)
        ? ((obj.metadata as Record<string, string>).plan as PlanId)
        : 'monthly';
      if (obj.payment_status === 'paid' || obj.status === 'complete') {
        await credits.recordPaidCheckout(String(obj.id), { plan, subscription: (obj.subscription as string | null) ?? null, paidUntil: null }, now);
      }
      break;
    }
    case 'invoice.paid': {
      const hash = await keyOfInvoice(obj, credits);
      const lines = (obj.lines as { data?: Array<{ period?: { end?: number } }> } | undefined)?.data ?? [];
      const end = isoOf(Math.max(0, ...lines.map((l) => l.period?.end ?? 0)));
      if (hash && end) await credits.extend(hash, end);
      break;
    }
    case 'customer.subscription.deleted':
    case 'invoice.payment_failed': {
      // No further renewal: the key keeps what was paid for and stops at the end of the paid period.
      const hash = event.type === 'invoice.payment_failed' ? await keyOfInvoice(obj, credits) : await credits.keyOfSubscription(String(obj.id));
      const record = hash ? await credits.get(hash) : null;
      const end = isoOf((obj.current_period_end as number | undefined) ?? (obj.period_end as number | undefined));
      if (record && end && end < record.paidUntil) await credits.extend(record.hash, end);
      break;
    }
  }
  await credits.recordEvent(event.id, event.type, now);
  return { received: true, duplicate: false, handled: event.type };
};

const keyOfInvoice = async (invoice: Record<string, unknown>, credits: DynamoCreditLedger): Promise<string | null> => {
  const parent = invoice.parent as { subscription_details?: { subscription?: string } } | undefined;
  const subscription = (invoice.subscription as string | undefined) ?? parent?.subscription_details?.subscription;
  return subscription ? credits.keyOfSubscription(subscription) : null;
};

/**
 * The key of a paid checkout, made now and shown once.
 * @returns the key, or why it cannot be shown ('unpaid': the payment is not confirmed yet; 'shown')
 */
const revealCheckoutKey = async (
  sessionId: string,
  credits: DynamoCreditLedger,
  now: Date,
): Promise<{ ok: true; key: string; hint: string } | { ok: false; reason: 'unpaid' | 'shown' }> => {
  const taken = await credits.takeCheckoutKey(sessionId);
  if (!taken.ok) return taken;
  const key = generateKey('live');
  const record = newKeyRecord({
    hash: hashKey(key),
    hint: keyHint(key),
    plan: taken.plan,
    now,
    ...(taken.subscription ? { subscription: taken.subscription } : {}),
  });
  await credits.put(taken.paidUntil ? { ...record, paidUntil: taken.paidUntil } : record);
  if (taken.subscription) await credits.linkSubscription(taken.subscription, record.hash);
  return { ok: true, key, hint: record.hint };
};

export { checkoutEnabled, createCheckout, handleWebhook, planOf, revealCheckoutKey };
