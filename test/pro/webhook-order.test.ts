/**
 * Stripe's webhook and a store that fails between the two writes of a delivery (the event's effect
 * and the record of its id). Stripe delivers an event again until it gets a 2xx, so whatever fails
 * must leave the event unrecorded: the next delivery then does the work. A paid checkout must never
 * be lost to a duplicate check that ran ahead of it.
 */
import { PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleWebhook } from '../../shared/pro/checkout';
import { DynamoCreditLedger } from '../../shared/pro/credit-ledger';
import { startTestStore, type TestStore } from '../helpers/store';

const WEBHOOK_SECRET = 'whsec_order_suite';
const CONFIG = { STRIPE_SECRET_KEY: 'sk_test_order', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_PRICE_MONTHLY: 'price_m', STRIPE_PRICE_YEARLY: 'price_y' };
const stripe = new Stripe('sk_test_unused');
const NOW = new Date('2026-11-20T12:00:00.000Z');

const completed = (n: number) => {
  const payload = JSON.stringify({
    id: `evt_order_${n}`,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: `cs_order_${n}`,
        object: 'checkout.session',
        status: 'complete',
        payment_status: 'paid',
        subscription: `sub_order_${n}`,
        metadata: { plan: 'yearly' },
      },
    },
  });
  return { payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) };
};

/** The document client, with the first Put whose key starts with `prefix` failing as a store outage would. */
const failingOnce = (doc: DynamoDBDocumentClient, prefix: string) => {
  let failed = false;
  return {
    send: async (command: unknown) => {
      if (!failed && command instanceof PutCommand && String(command.input.Item?.pk).startsWith(prefix)) {
        failed = true;
        throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
      }
      return doc.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
};

describe('Stripe webhook: the event id is recorded after its effect', () => {
  let store: TestStore;
  let plain: DynamoCreditLedger;
  beforeAll(async () => {
    store = await startTestStore();
    plain = new DynamoCreditLedger(store.doc, store.config.CREDITS_TABLE);
  });
  afterAll(() => store?.close());

  it.each([
    ['the paid checkout', 'CHECKOUT#', 1],
    ['the event id', 'STRIPE_EVENT#', 2],
  ])('a store failure writing %s: the delivery fails (Stripe retries), and the retry records the paid checkout once', async (_what, prefix, n) => {
    const ledger = new DynamoCreditLedger(failingOnce(store.doc, prefix), store.config.CREDITS_TABLE);
    const { payload, signature } = completed(n);

    await expect(handleWebhook(CONFIG, payload, signature, ledger, NOW)).rejects.toThrow(/socket hang up/);
    // Stripe's retry of the same event
    expect(await handleWebhook(CONFIG, payload, signature, ledger, NOW)).toEqual({ received: true, duplicate: false, handled: 'checkout.session.completed' });
    expect(await handleWebhook(CONFIG, payload, signature, ledger, NOW)).toMatchObject({ duplicate: true });

    // The buyer's key can be shown, once.
    expect(await plain.takeCheckoutKey(`cs_order_${n}`)).toEqual({ ok: true, plan: 'yearly', subscription: `sub_order_${n}`, paidUntil: null });
    expect(await plain.takeCheckoutKey(`cs_order_${n}`)).toEqual({ ok: false, reason: 'shown' });
  });
});
