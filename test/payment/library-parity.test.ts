/**
 * What the lane keeps of its own, held to @x402/core / @x402/evm where they overlap
 * (docs/x402-library-spike.md). Every expected value here comes from the library's output, so a
 * library upgrade that diverges from us fails the suite. The last block pins the library
 * behaviours the spike gave as reasons for not moving verify/settle onto x402ResourceServer:
 * if one of them fails, the library changed and the spike is worth redoing.
 */
import { x402ResourceServer } from '@x402/core/server';
import type { FacilitatorClient } from '@x402/core/server';
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse } from '@x402/core/types';
import { DEFAULT_ASSETS, getDefaultAsset } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type X402Network } from '../../shared/config';
import { USDC_BY_NETWORK } from '../../shared/payment/assets';
import { buildPaymentRequired, paymentOption, toV1Body } from '../../shared/payment/challenge';
import { PAID_ROUTES } from '../../shared/routes';
import { usdToAtomic } from '../../shared/routes/pricing';

const NETWORKS = Object.keys(USDC_BY_NETWORK) as X402Network[];
const payTo = privateKeyToAccount(generatePrivateKey()).address;

/** Our accepts[] fields that the library does not build: the spec's v1 fields (SPEC.md "Authentication"). */
const V1_FIELDS = ['maxAmountRequired', 'resource', 'description', 'mimeType'] as const;

/** A facilitator that supports `exact` on our networks and records the calls it gets. */
const fakeFacilitator = (settle?: () => Promise<SettleResponse>) => {
  const calls = { verify: 0, settle: 0 };
  const client: FacilitatorClient = {
    verify: async () => {
      calls.verify++;
      return { isValid: true, payer: payTo };
    },
    settle: async (p: PaymentPayload, r: PaymentRequirements) => {
      calls.settle++;
      return settle ? settle() : { success: true, transaction: `0x${'1'.repeat(64)}`, network: r.network, payer: String(p.payload.from ?? '') };
    },
    getSupported: async (): Promise<SupportedResponse> => ({
      kinds: NETWORKS.map((network) => ({ x402Version: 2, scheme: 'exact', network })),
      extensions: [],
      signers: {},
    }),
  };
  return { client, calls };
};

const libraryServer = async (client: FacilitatorClient): Promise<x402ResourceServer> => {
  const server = new x402ResourceServer(client);
  for (const n of NETWORKS) server.register(n, new ExactEvmScheme());
  await server.initialize();
  return server;
};

describe('USDC per network: ours equals @x402/evm', () => {
  it.each(NETWORKS)('%s: address, EIP-712 domain and decimals are the library default asset', (network) => {
    const lib = getDefaultAsset(network, 'USDC');
    const ours = USDC_BY_NETWORK[network];
    expect(ours.address).toBe(lib.asset);
    expect(ours.eip712).toEqual({ name: lib.name, version: lib.version });
    expect(ours.decimals).toBe(lib.decimals);
    // EIP-3009 (no permit2 transfer method): the only payload the lane accepts.
    expect(lib.assetTransferMethod).toBeUndefined();
    // It is the network's first (default) asset, the one a "$0.01" price resolves to.
    expect(DEFAULT_ASSETS[network]![0]).toBe(lib);
  });

  it.each(NETWORKS)('%s: chain id and v1 name are the library v1 mapping', (network) => {
    const ours = USDC_BY_NETWORK[network];
    expect(`eip155:${ours.chainId}`).toBe(network);
    expect(EVM_NETWORK_CHAIN_ID_MAP[ours.v1Name as keyof typeof EVM_NETWORK_CHAIN_ID_MAP]).toBe(ours.chainId);
    // getDefaultAsset resolves v1 names too: our v1 name names the same asset.
    expect(getDefaultAsset(ours.v1Name as Network).asset).toBe(ours.address);
  });
});

describe('402 accepts[]: ours equals what x402ResourceServer + ExactEvmScheme build', () => {
  let server: x402ResourceServer;
  beforeAll(async () => {
    server = await libraryServer(fakeFacilitator().client);
  });

  it('prices every paid route to the same atomic amount as ExactEvmScheme.parsePrice', async () => {
    const scheme = new ExactEvmScheme();
    expect(PAID_ROUTES.length).toBeGreaterThan(0);
    for (const route of PAID_ROUTES) {
      for (const network of NETWORKS) {
        const parsed = await scheme.parsePrice(`$${route.priceUsd}`, network);
        expect(usdToAtomic(route.priceUsd!), `${route.id} on ${network}`).toBe(parsed.amount);
        expect(/^\d+$/.test(parsed.amount)).toBe(true);
      }
    }
  });

  it.each(NETWORKS)('%s: every paid route, all fields but the spec v1 ones', async (network) => {
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_PAY_TO: payTo, X402_NETWORK: network });
    for (const route of PAID_ROUTES) {
      const [lib, ...more] = await server.buildPaymentRequirements({
        scheme: 'exact',
        network,
        payTo,
        price: `$${route.priceUsd}`,
        maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
      });
      expect(more).toHaveLength(0);
      const ours: Record<string, unknown> = { ...paymentOption(route, route.path, config) };
      for (const f of V1_FIELDS) delete ours[f];
      expect(ours, route.id).toEqual(lib);
    }
  });

  it('the v1 fields we add repeat the library amount and name the resource; nothing else is added', async () => {
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_PAY_TO: payTo });
    const route = PAID_ROUTES[0]!;
    const [lib] = await server.buildPaymentRequirements({ scheme: 'exact', network: config.X402_NETWORK, payTo, price: `$${route.priceUsd}` });
    const ours = paymentOption(route, route.path, config);
    expect(Object.keys(ours).sort()).toEqual([...Object.keys(lib!), ...V1_FIELDS].sort());
    expect(ours.maxAmountRequired).toBe(lib!.amount);
  });

  it('the 402 document: the library response for our requirements and resource is ours minus the v1 fields', async () => {
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_PAY_TO: payTo });
    const route = PAID_ROUTES[0]!;
    const url = `https://api.example.com${route.path}`;
    const ours = buildPaymentRequired(route, route.path, url, config);
    const requirements = await server.buildPaymentRequirements({
      scheme: 'exact',
      network: config.X402_NETWORK,
      payTo,
      price: `$${route.priceUsd}`,
      maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    });
    const lib = await server.createPaymentRequiredResponse(requirements, ours.resource, ours.error, ours.extensions);
    const stripped = {
      ...ours,
      accepts: ours.accepts.map((a) => Object.fromEntries(Object.entries(a).filter(([k]) => !(V1_FIELDS as readonly string[]).includes(k)))),
    };
    expect(stripped).toEqual(lib);
  });

  it('the v1 body names the network as the library v1 table does', () => {
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_PAY_TO: payTo, X402_NETWORK: 'eip155:8453' });
    const route = PAID_ROUTES[0]!;
    const v1 = toV1Body(buildPaymentRequired(route, route.path, `https://api.example.com${route.path}`, config), config.X402_NETWORK);
    expect(EVM_NETWORK_CHAIN_ID_MAP[v1.accepts[0]!.network as keyof typeof EVM_NETWORK_CHAIN_ID_MAP]).toBe(8453);
  });
});

/** Behaviours of x402ResourceServer 2.27 that docs/x402-library-spike.md gives as reasons. */
describe('why verify/settle stay beside x402ResourceServer (fails when the library changes them)', () => {
  const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', X402_PAY_TO: payTo });
  const route = PAID_ROUTES[0]!;
  const payload = (accepted: PaymentRequirements): PaymentPayload => ({
    x402Version: 2,
    resource: { url: `https://api.example.com${route.path}`, description: '', mimeType: 'application/json' },
    accepted,
    payload: { signature: '0x00', authorization: {} },
  });

  it('findMatchingRequirements refuses an accepted entry that echoes the spec v1 fields of our 402', async () => {
    const server = await libraryServer(fakeFacilitator().client);
    const requirements = await server.buildPaymentRequirements({
      scheme: 'exact',
      network: config.X402_NETWORK,
      payTo,
      price: `$${route.priceUsd}`,
      maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    });
    const option = paymentOption(route, route.path, config);
    expect(server.findMatchingRequirements(requirements, payload({ ...option, network: config.X402_NETWORK }))).toBeUndefined();
    // Without the v1 fields it matches: the difference is only those fields.
    const core = { ...option } as Record<string, unknown>;
    for (const f of V1_FIELDS) delete core[f];
    expect(server.findMatchingRequirements(requirements, payload(core as PaymentRequirements))).toEqual(requirements[0]);
  });

  it('a beforeVerify hook that throws (a store outage while claiming) does not stop /verify', async () => {
    const { client, calls } = fakeFacilitator();
    const server = await libraryServer(client);
    server.onBeforeVerify(async () => {
      throw new Error('store unavailable');
    });
    const [req] = await server.buildPaymentRequirements({ scheme: 'exact', network: config.X402_NETWORK, payTo, price: `$${route.priceUsd}` });
    const warn = console.warn;
    console.warn = () => {};
    try {
      await expect(server.verifyPayment(payload(req!), req!)).resolves.toMatchObject({ isValid: true });
    } finally {
      console.warn = warn;
    }
    expect(calls.verify).toBe(1);
  });

  it('a beforeSettle hook that throws (SETTLING not written) does not stop /settle', async () => {
    const { client, calls } = fakeFacilitator();
    const server = await libraryServer(client);
    server.onBeforeSettle(async () => {
      throw new Error('store unavailable');
    });
    const [req] = await server.buildPaymentRequirements({ scheme: 'exact', network: config.X402_NETWORK, payTo, price: `$${route.priceUsd}` });
    const warn = console.warn;
    console.warn = () => {};
    try {
      await expect(server.settlePayment(payload(req!), req!)).resolves.toMatchObject({ success: true });
    } finally {
      console.warn = warn;
    }
    expect(calls.settle).toBe(1);
  });

  it('settlePayment retries a pending settlement once with no deadline and no hook in between', async () => {
    const pending: SettleResponse = { success: false, errorReason: 'settlement_pending', transaction: `0x${'2'.repeat(64)}`, network: config.X402_NETWORK };
    const { client, calls } = fakeFacilitator(async () => pending);
    const server = await libraryServer(client);
    let beforeSettle = 0;
    server.onBeforeSettle(async () => {
      beforeSettle++;
    });
    const [req] = await server.buildPaymentRequirements({ scheme: 'exact', network: config.X402_NETWORK, payTo, price: `$${route.priceUsd}` });
    await expect(server.settlePayment(payload(req!), req!)).resolves.toMatchObject({ success: false, errorReason: 'settlement_pending' });
    expect(calls.settle).toBe(2);
    expect(beforeSettle).toBe(1);
  });

  it('buildPaymentRequirements needs the facilitator (/supported) before it can build a challenge', async () => {
    const server = new x402ResourceServer(fakeFacilitator().client).register(config.X402_NETWORK, new ExactEvmScheme());
    await expect(server.buildPaymentRequirements({ scheme: 'exact', network: config.X402_NETWORK, payTo, price: `$${route.priceUsd}` })).rejects.toThrow(
      /initialize/,
    );
  });
});
