/**
 * Pure parts of the x402 lane: the chargeable rule, the USDC table, the challenge document,
 * header decoding, the local checks (with real viem signatures) and the facilitator error mapping.
 */
import { PaymentRequiredV2Schema, PaymentRequirementsV1Schema, parsePaymentRequired } from '@x402/core/schemas';
import { FacilitatorTimeoutError, SettleError, VerifyError } from '@x402/core/types';
import { x402HTTPClient, x402Client } from '@x402/core/client';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../shared/config';
import { USDC_BY_NETWORK } from '../../shared/payment/assets';
import { buildPaymentRequired, encodeX402Header, resourceUrl, toV1Body } from '../../shared/payment/challenge';
import { checkPayment, type ExpectedPayment } from '../../shared/payment/checks';
import { classifyFacilitatorError, isSettledBeforeSending, isSettlementPending, reasonFromFacilitator } from '../../shared/payment/facilitator';
import { parsePaymentPayload, type DecodedPayment } from '../../shared/payment/payload';
import { credentialsOf, MAX_PAYMENT_HEADER_CHARS } from '../../shared/http/payment-credentials';
import { isChargeable } from '../../shared/routes/table';
import { findRoute, FREE_ROUTES, PAID_ROUTES } from '../../shared/routes';
import { acceptedFor, b64, nowS, signAuthorization, USDC, v1Payload, v2Payload } from './helpers';

const payer = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_PAY_TO: payTo });
const expected: ExpectedPayment = {
  network: 'eip155:84532',
  asset: USDC,
  payTo,
  amount: 10_000n,
  resource: 'http://127.0.0.1/v1/price/CL',
  maxTimeoutSeconds: 60,
};

const decodeOk = (payload: unknown): DecodedPayment => {
  const d = parsePaymentPayload(payload);
  if (!d.ok) throw new Error(`expected a decodable payload, got ${d.reason}`);
  return d;
};

/** What the HTTP transport and then the exact lane make of a header value. */
const decodeHeader = (value: string) => {
  const c = credentialsOf({ 'x-payment': value });
  if (c.kind === 'unreadable') return { ok: false, reason: c.reason };
  if (c.kind !== 'x402') throw new Error(`unexpected credentials ${c.kind}`);
  return parsePaymentPayload(c.payload);
};

describe('x402 configuration (validated at start)', () => {
  const base = { OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' };
  const problems = (env: Record<string, string>): string => {
    try {
      loadConfig({ ...base, ...env });
      return '';
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems.join('\n');
    }
  };

  it('refuses an enforced challenge that would pay the zero address outside dev, and allows it in a dev sandbox', () => {
    expect(problems({ STAGE: 'prod', X402_NETWORK: 'eip155:8453', X402_ENFORCE: '1' })).toContain('X402_PAY_TO');
    expect(problems({ STAGE: 'staging', X402_ENFORCE: '1', X402_PAY_TO: payTo, PUBLIC_BASE_URL: 'https://data.example.com' })).toBe('');
    expect(problems({ STAGE: 'dev', X402_ENFORCE: '1' })).toBe('');
  });

  it('requires PUBLIC_BASE_URL of a service that takes money outside dev: URLs in 402s and discovery documents are never guessed from a request', () => {
    expect(problems({ STAGE: 'staging', X402_ENFORCE: '1', X402_PAY_TO: payTo })).toContain('PUBLIC_BASE_URL');
    expect(problems({ STAGE: 'prod', X402_NETWORK: 'eip155:8453', X402_ENFORCE: '1', X402_PAY_TO: payTo })).toContain('PUBLIC_BASE_URL');
    expect(problems({ STAGE: 'dev', X402_ENFORCE: '1' })).toBe('');
    expect(problems({ STAGE: 'prod' })).toBe(''); // an ingestion function writes no URL
  });

  it('refuses networks other than Base and Base Sepolia, windows too short to settle, and unbounded facilitator timeouts', () => {
    expect(problems({ X402_NETWORK: 'eip155:1' })).toContain('X402_NETWORK');
    expect(problems({ X402_MAX_TIMEOUT_SECONDS: '20' })).toContain('X402_MAX_TIMEOUT_SECONDS');
    expect(problems({ X402_FACILITATOR_TIMEOUT_MS: '30000' })).toContain('X402_FACILITATOR_TIMEOUT_MS');
    expect(problems({ X402_RPC_URL: 'not a url' })).toContain('X402_RPC_URL');
    expect(loadConfig({ ...base, X402_RPC_URL: 'http://127.0.0.1:8545' }).X402_RPC_URL).toBe('http://127.0.0.1:8545');
  });
});

describe('isChargeable', () => {
  it('never charges free routes and charges every other paid route', () => {
    for (const r of FREE_ROUTES) expect(isChargeable(r, config), r.id).toBe(false);
    const charged = PAID_ROUTES.filter((r) => isChargeable(r, config)).map((r) => r.id);
    expect(charged).toHaveLength(PAID_ROUTES.length - 2);
  });

  it('keeps the curve and calendar spread free while INDICATIVE_FUTURES is off, and charges them when on', () => {
    const curve = findRoute('GET /v1/curve/{root}')!;
    const calendar = findRoute('GET /v1/spreads/calendar/{root}')!;
    for (const r of [curve, calendar]) {
      expect(isChargeable(r, { INDICATIVE_FUTURES: false })).toBe(false);
      expect(isChargeable(r, { INDICATIVE_FUTURES: true })).toBe(true);
    }
    expect(isChargeable(findRoute('GET /v1/spreads/crack')!, { INDICATIVE_FUTURES: false })).toBe(true);
  });
});

describe('USDC table', () => {
  it('has the Base and Base Sepolia addresses and their different EIP-712 names', () => {
    expect(USDC_BY_NETWORK['eip155:8453']).toMatchObject({
      address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      eip712: { name: 'USD Coin', version: '2' },
      decimals: 6,
      chainId: 8453,
      v1Name: 'base',
    });
    expect(USDC_BY_NETWORK['eip155:84532']).toMatchObject({
      address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
      eip712: { name: 'USDC', version: '2' },
      decimals: 6,
      chainId: 84532,
      v1Name: 'base-sepolia',
    });
  });
});

describe('challenge document', () => {
  const route = findRoute('GET /v1/decision/all')!;
  const doc = buildPaymentRequired(route, '/v1/decision/all', 'https://api.example.com/v1/decision/all', config);

  it('states the price in atomic units (0.25 USD = 250000) with the token domain', () => {
    const { extensions, ...rest } = doc;
    expect(Object.keys(extensions).sort()).toEqual(['bazaar', 'payment-identifier']);
    expect(rest).toEqual({
      x402Version: 2,
      error: 'PAYMENT_REQUIRED',
      resource: {
        url: 'https://api.example.com/v1/decision/all',
        description: route.summary,
        mimeType: 'application/json',
        serviceName: 'Commodity data service',
        tags: ['commodities', 'decision'],
      },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:84532',
          amount: '250000',
          maxAmountRequired: '250000',
          resource: '/v1/decision/all',
          description: route.summary,
          mimeType: 'application/json',
          payTo,
          asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
          maxTimeoutSeconds: 60,
          extra: { name: 'USDC', version: '2' },
        },
      ],
    });
  });

  it('uses Base mainnet USDC and its "USD Coin" domain on eip155:8453', () => {
    const prod = buildPaymentRequired(route, '/v1/decision/all', 'https://x/y', { ...config, X402_NETWORK: 'eip155:8453' });
    expect(prod.accepts[0]).toMatchObject({
      network: 'eip155:8453',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      extra: { name: 'USD Coin', version: '2' },
    });
  });

  it('has a v1 form that x402 v1 (x402@1.2.0) parses: v1 network names, absolute resource, the same price', async () => {
    const { PaymentRequirementsSchema } = await import('x402/types');
    const prod = buildPaymentRequired(route, '/v1/decision/all', 'https://api.example.com/v1/decision/all', { ...config, X402_NETWORK: 'eip155:8453' });
    const v1 = toV1Body(prod, 'eip155:8453');
    expect(v1.x402Version).toBe(1);
    expect(PaymentRequirementsSchema.parse(v1.accepts[0])).toEqual({
      scheme: 'exact',
      network: 'base',
      maxAmountRequired: '250000',
      resource: 'https://api.example.com/v1/decision/all',
      description: route.summary,
      mimeType: 'application/json',
      payTo,
      maxTimeoutSeconds: 60,
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      extra: { name: 'USD Coin', version: '2' },
    });
    expect(toV1Body(doc, 'eip155:84532').accepts[0]!.network).toBe('base-sepolia');
    // The spec's v2 body is what v1 refuses.
    expect(() => PaymentRequirementsSchema.parse(doc.accepts[0])).toThrow();
  });

  it('encodes as a header that @x402/core parses as a valid v2 PaymentRequired', () => {
    const header = encodeX402Header(doc);
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const parsed = parsePaymentRequired(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
    expect(parsed.success).toBe(true);
    expect(PaymentRequiredV2Schema.safeParse(doc).success).toBe(true);
    // What the official client does with a 402: read only the header.
    const seen = new x402HTTPClient(new x402Client()).getPaymentRequiredResponse((n) => (n === 'PAYMENT-REQUIRED' ? header : null));
    expect(seen).toMatchObject({ x402Version: 2, resource: { url: 'https://api.example.com/v1/decision/all' }, accepts: [{ amount: '250000' }] });
  });

  it('gives body readers v1-shaped accepts (the SDK v1 schema parses them)', () => {
    const v1 = PaymentRequirementsV1Schema.safeParse(doc.accepts[0]);
    expect(v1.success).toBe(true);
    expect(new URL(doc.resource.url).pathname).toBe('/v1/decision/all');
  });

  it('builds resource.url from PUBLIC_BASE_URL, else from the domain the runtime received the request on (https, http on loopback)', () => {
    expect(resourceUrl('https://data.example.com/', 'abc.execute-api.us-east-1.amazonaws.com', '/v1/prices', 'codes=CL')).toBe(
      'https://data.example.com/v1/prices?codes=CL',
    );
    expect(resourceUrl(undefined, 'abc.execute-api.us-east-1.amazonaws.com', '/v1/price/CL', '')).toBe(
      'https://abc.execute-api.us-east-1.amazonaws.com/v1/price/CL',
    );
    expect(resourceUrl(undefined, '127.0.0.1:8787', '/v1/price/CL', '')).toBe('http://127.0.0.1:8787/v1/price/CL');
  });
});

describe('payment header decoding', () => {
  it('takes a Pro key first, then PAYMENT-SIGNATURE or X-PAYMENT, and refuses two different payments', () => {
    const v = b64({ x402Version: 2 });
    expect(credentialsOf({})).toEqual({ kind: 'none' });
    expect(credentialsOf({ 'x-payment': v })).toEqual({ kind: 'x402', payload: { x402Version: 2 } });
    expect(credentialsOf({ 'payment-signature': v, 'x-payment': v })).toEqual({ kind: 'x402', payload: { x402Version: 2 } });
    expect(credentialsOf({ 'payment-signature': v, 'x-payment': b64({ x402Version: 1 }) })).toMatchObject({
      kind: 'unreadable',
      reason: 'conflicting_payment_headers',
    });
    // A key wins; the payment beside it is kept only for a call the key's credits cannot pay.
    expect(credentialsOf({ authorization: 'Bearer cds_live_abc', 'payment-signature': v })).toEqual({
      kind: 'pro',
      key: 'cds_live_abc',
      x402: { x402Version: 2 },
    });
    expect(credentialsOf({ authorization: 'Basic abc' })).toEqual({ kind: 'pro', key: '' });
  });

  it.each([
    ['not base64', '%%%not-base64%%%', 'malformed_base64'],
    ['base64url', `${b64('{"a":"??>>"}').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}-_`, 'malformed_base64'],
    ['base64 of text', b64('hello, not json'), 'malformed_json'],
    ['JSON that is not a payload', b64({ hello: 'world' }), 'invalid_payload'],
    ['an unknown x402 version', b64({ x402Version: 3, payload: {} }), 'invalid_payload'],
    ['a payload without a signature', b64({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { authorization: {} } }), 'invalid_payload'],
    [
      'a Permit2 payload',
      b64({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: { signature: '0x00', permit2Authorization: {} } }),
      'unsupported_transfer_method',
    ],
    ['an oversized header', 'A'.repeat(MAX_PAYMENT_HEADER_CHARS + 4), 'payment_header_too_large'],
  ])('refuses %s', (_n, value, reason) => {
    expect(decodeHeader(value)).toMatchObject({ ok: false, reason });
  });

  it('decodes v1 and v2 payloads to the same authorization', async () => {
    const signed = await signAuthorization(payer, { payTo });
    const v2 = decodeOk(v2Payload(signed, acceptedFor(payTo)));
    const v1 = decodeOk(v1Payload(signed));
    for (const d of [v1, v2]) {
      expect(d.scheme).toBe('exact');
      expect(d.authorization).toMatchObject({ from: payer.address, value: 10_000n, validAfter: 0n });
      expect(d.signature).toBe(signed.signature);
    }
    expect(v2).toMatchObject({ x402Version: 2, network: 'eip155:84532' });
    expect(v1).toMatchObject({ x402Version: 1, network: 'base-sepolia' });
    expect(v1.accepted).toBeUndefined();
  });
});

describe('local payment checks (real EIP-712 signatures)', () => {
  const now = nowS();
  const check = async (payload: unknown) => checkPayment(decodeOk(payload), expected, now);

  it('accepts a v2 payment (validAfter 0) and a v1 payment (validAfter now - 600)', async () => {
    expect(await check(v2Payload(await signAuthorization(payer, { payTo }), acceptedFor(payTo)))).toBeNull();
    expect(await check(v1Payload(await signAuthorization(payer, { payTo, validAfter: now - 600n })))).toBeNull();
    expect(await check(v1Payload(await signAuthorization(payer, { payTo }), 'eip155:84532'))).toBeNull();
  });

  it.each([
    ['another scheme', async () => v1Payload(await signAuthorization(payer, { payTo }), 'base-sepolia', 'upto'), 'scheme_mismatch'],
    ['another network (v1 name)', async () => v1Payload(await signAuthorization(payer, { payTo }), 'base'), 'network_mismatch'],
    [
      'another network (v2)',
      async () => v2Payload(await signAuthorization(payer, { payTo }), acceptedFor(payTo, '10000', { network: 'eip155:8453' })),
      'network_mismatch',
    ],
    [
      'another asset',
      async () => v2Payload(await signAuthorization(payer, { payTo }), acceptedFor(payTo, '10000', { asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' })),
      'asset_mismatch',
    ],
    ['another payTo in accepted', async () => v2Payload(await signAuthorization(payer, { payTo }), acceptedFor(stranger.address)), 'pay_to_mismatch'],
    ['another recipient in the authorization', async () => v1Payload(await signAuthorization(payer, { payTo: stranger.address })), 'pay_to_mismatch'],
    ['a value below the price', async () => v1Payload(await signAuthorization(payer, { payTo, value: 9_999n })), 'amount_below_price'],
    ['an accepted amount below the price', async () => v2Payload(await signAuthorization(payer, { payTo }), acceptedFor(payTo, '1')), 'amount_below_price'],
    ['a value above the price', async () => v1Payload(await signAuthorization(payer, { payTo, value: 10_001n })), 'amount_above_price'],
    [
      'a window that starts in the future',
      async () => v1Payload(await signAuthorization(payer, { payTo, validAfter: now + 120n })),
      'authorization_not_yet_valid',
    ],
    ['an expired window', async () => v1Payload(await signAuthorization(payer, { payTo, validBefore: now - 1n })), 'authorization_expired'],
    [
      'a window with too little time left to settle',
      async () => v1Payload(await signAuthorization(payer, { payTo, validBefore: now + 5n })),
      'authorization_expired',
    ],
    ['a signature by another key', async () => v1Payload(await signAuthorization(payer, { payTo, signer: stranger })), 'invalid_signature'],
    [
      'a signature for another token domain',
      async () => v1Payload(await signAuthorization(payer, { payTo, domain: { name: 'USD Coin' } })),
      'invalid_signature',
    ],
    ['a signature for another chain', async () => v1Payload(await signAuthorization(payer, { payTo, domain: { chainId: 8453 } })), 'invalid_signature'],
    ['a claimed payer who did not sign', async () => v1Payload(await signAuthorization(payer, { payTo, from: stranger.address })), 'invalid_signature'],
  ])('refuses %s', async (_n, build, reason) => {
    expect(await check(await build())).toMatchObject({ ok: false, reason });
  });

  it('refuses a tampered value even when the signature is well-formed', async () => {
    const signed = await signAuthorization(payer, { payTo, value: 1n });
    signed.authorization.value = '10000';
    expect(await check(v1Payload(signed))).toMatchObject({ reason: 'invalid_signature' });
  });

  it('refuses the high-s twin of a valid signature, as USDC would at settlement', async () => {
    const signed = await signAuthorization(payer, { payTo });
    const b = Buffer.from(signed.signature.slice(2), 'hex');
    const s = BigInt(`0x${b.subarray(32, 64).toString('hex')}`);
    // n - s (n: the secp256k1 group order) with the other recovery bit recovers the same key.
    b.set(Buffer.from((0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n - s).toString(16).padStart(64, '0'), 'hex'), 32);
    b[64] = b[64] === 27 ? 28 : 27;
    signed.signature = `0x${b.toString('hex')}`;
    expect(await check(v1Payload(signed))).toMatchObject({ reason: 'invalid_signature', message: expect.stringMatching(/low-s/) });
  });

  it('refuses garbage signature bytes of the right length', async () => {
    const signed = await signAuthorization(payer, { payTo });
    signed.signature = `0x${'11'.repeat(65)}`;
    expect(await check(v1Payload(signed))).toMatchObject({ reason: 'invalid_signature' });
  });

  it('leaves deployed smart-wallet (ERC-1271) signatures to the facilitator', async () => {
    const signed = await signAuthorization(payer, { payTo });
    signed.signature = `0x${'ab'.repeat(200)}`;
    expect(await check(v1Payload(signed))).toBeNull();
  });

  it('refuses ERC-6492 wrapped signatures before any store write (unparseable ones do not even decode)', async () => {
    const signed = await signAuthorization(payer, { payTo });
    signed.signature = `0x${'ab'.repeat(100)}${'6492'.repeat(16)}`;
    expect(await check(v1Payload(signed))).toMatchObject({ reason: 'invalid_signature' });
  });

  it('refuses an authorization valid for much longer than maxTimeoutSeconds (a 10-year authorization)', async () => {
    const signed = await signAuthorization(payer, { payTo, validBefore: nowS() + 10n * 365n * 86_400n });
    expect(await check(v1Payload(signed))).toMatchObject({ reason: 'authorization_window_too_long' });
    const fair = await signAuthorization(payer, { payTo, validBefore: nowS() + 60n + 100n });
    expect(await check(v1Payload(fair))).toBeNull();
  });

  it('allows maxTimeoutSeconds plus 120 s of clock and signing slack, and not a second more', async () => {
    // `now` is fixed for the checks: the windows are exact, however long signing takes.
    const atEdge = await signAuthorization(payer, { payTo, validBefore: now + 60n + 120n });
    expect(await check(v1Payload(atEdge))).toBeNull();
    const past = await signAuthorization(payer, { payTo, validBefore: now + 60n + 121n });
    expect(await check(v1Payload(past))).toMatchObject({ reason: 'authorization_window_too_long' });
  });
});

describe('settle failures that prove nothing was sent', () => {
  it('a refusal that carries a transaction hash is pending, also when it arrives as a 4xx verdict', () => {
    const tx = `0x${'ab'.repeat(32)}`;
    const verdict = classifyFacilitatorError(
      new SettleError(400, { success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: tx, network: 'eip155:84532' }),
    );
    expect(verdict).toEqual({ kind: 'verdict', reason: 'invalid_exact_evm_insufficient_balance', transaction: tx });
    // What the exact lane decides from it: a transaction was sent, so money may have moved.
    const transaction = verdict.kind === 'verdict' ? (verdict.transaction ?? '') : '';
    expect(isSettledBeforeSending({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction })).toBe(false);
  });

  it("only the facilitator's own checks, with no transaction, count as refused before sending", () => {
    expect(isSettledBeforeSending({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '' })).toBe(true);
    expect(isSettledBeforeSending({ success: false, errorReason: 'invalid_exact_evm_signature', transaction: '' })).toBe(true);
    // A lost answer of the chain node after sendRawTransaction: the transfer may be mined.
    expect(isSettledBeforeSending({ success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '' })).toBe(false);
    // An earlier unanswered attempt may have used the nonce.
    expect(isSettledBeforeSending({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '' })).toBe(false);
    expect(isSettledBeforeSending({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '0xabc' })).toBe(false);
    expect(isSettledBeforeSending({ success: false, errorReason: 'settlement_pending', transaction: '' })).toBe(false);
    expect(isSettledBeforeSending({ success: false, errorReason: undefined, transaction: '' })).toBe(false);
    expect(isSettledBeforeSending({ success: true, errorReason: undefined, transaction: '0xabc' })).toBe(false);
  });
});

describe('facilitator error mapping', () => {
  it('tells verdicts, requests that never left, and unknown outcomes apart', () => {
    expect(classifyFacilitatorError(new FacilitatorTimeoutError('settle', 100))).toMatchObject({ kind: 'unknown', timeout: true });
    expect(classifyFacilitatorError(new VerifyError(400, { isValid: false, invalidReason: 'invalid_exact_evm_signature' }))).toEqual({
      kind: 'verdict',
      reason: 'invalid_exact_evm_signature',
    });
    expect(classifyFacilitatorError(new VerifyError(500, { isValid: false, invalidReason: 'x' }))).toMatchObject({ kind: 'unknown' });
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
    expect(classifyFacilitatorError(refused)).toMatchObject({ kind: 'not_sent' });
    expect(
      classifyFacilitatorError(new SettleError(400, { success: false, errorReason: 'insufficient_funds', transaction: '', network: 'eip155:84532' })),
    ).toMatchObject({
      kind: 'verdict',
      reason: 'insufficient_funds',
    });
    expect(classifyFacilitatorError(new Error('Facilitator settle failed (502): bad gateway'))).toMatchObject({ kind: 'unknown', timeout: false });
  });

  it('maps facilitator reasons to the service vocabulary and spots pending settlements', () => {
    expect(reasonFromFacilitator('invalid_exact_evm_insufficient_balance', 'x')).toBe('insufficient_funds');
    expect(reasonFromFacilitator('something_new', 'payment_rejected_by_facilitator')).toBe('payment_rejected_by_facilitator');
    expect(isSettlementPending({ success: false, errorReason: 'settlement_pending', transaction: '0x1', network: 'eip155:84532' })).toBe(true);
    expect(isSettlementPending({ success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '', network: 'eip155:84532' })).toBe(false);
  });
});
