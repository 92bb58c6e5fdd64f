/**
 * The 402 challenge (SPEC.md "Authentication"): one JSON document sent both as the body and,
 * base64-encoded, as the `PAYMENT-REQUIRED` header. It is a valid x402 v2 PaymentRequired
 * (official v2 clients read only the header: top-level `resource` object, accepts[] with
 * amount/asset/payTo/maxTimeoutSeconds/extra), and each accepts[] item also carries the v1
 * fields the spec lists (maxAmountRequired, resource, description, mimeType) for clients that
 * read the body.
 *
 * `resource.url` is absolute (PUBLIC_BASE_URL, else the domain the runtime received the request on)
 * because x402 clients treat it as a URL; accepts[].resource is the requested path, as the spec says.
 */
import type { PaymentRequirementsV2 } from '@x402/core/schemas';
import type { PaymentRequirements } from '@x402/core/types';
import type { Address } from 'viem';
import type { Config, X402Network } from '../config';
import { SERVICE_NAME } from '../docs/identity';
import { usdToAtomic } from '../routes/pricing';
import { bazaarExtension } from './bazaar';
import { PAYMENT_IDENTIFIER, paymentIdentifierDeclaration } from './payment-id';
import type { RouteDef } from '../routes/table';
import { usdcFor } from './assets';

/** One payment option: x402 v2 requirements plus the v1 fields of the spec's body. */
interface PaymentOption extends PaymentRequirementsV2 {
  scheme: 'exact';
  maxAmountRequired: string;
  resource: string;
  description: string;
  mimeType: string;
  extra: { name: string; version: string };
}

/** The 402 body (and, base64-encoded, the PAYMENT-REQUIRED header). */
interface PaymentRequiredBody {
  x402Version: 2;
  error: string;
  resource: { url: string; description: string; mimeType: string; serviceName: string; tags: string[] };
  accepts: Array<PaymentOption | BatchPaymentOption>;
  extensions: Record<string, unknown>;
}

/**
 * What a route costs under this configuration, as the one payment option offered.
 * @param route a priced route
 * @param path the requested path (accepts[].resource)
 */
const paymentOption = (
  route: Pick<RouteDef, 'priceUsd' | 'summary' | 'mimeType'>,
  path: string,
  config: Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO' | 'X402_MAX_TIMEOUT_SECONDS'>,
): PaymentOption => {
  if (route.priceUsd === null) throw new Error('paymentOption: route has no price');
  const usdc = usdcFor(config.X402_NETWORK);
  const amount = usdToAtomic(route.priceUsd);
  return {
    scheme: 'exact',
    network: config.X402_NETWORK,
    amount,
    maxAmountRequired: amount,
    resource: path,
    description: route.summary,
    mimeType: route.mimeType,
    payTo: config.X402_PAY_TO,
    asset: usdc.address,
    maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS,
    extra: { name: usdc.eip712.name, version: usdc.eip712.version },
  };
};

/** The terms of the batch-settlement option, as the facilitator and the lane set them. */
interface BatchTerms {
  /** Signs claims and refunds of our channels (the facilitator's advertised authorizer). */
  receiverAuthorizer: Address;
  /** Seconds a buyer's timed withdrawal waits. */
  withdrawDelay: number;
  /** The deposit buyers are asked for at least (USDC atomic units). */
  minDeposit: string;
}

/** The 402's batch-settlement option: the exact option's price, asset and pay-to, with the channel terms. */
interface BatchPaymentOption extends Omit<PaymentOption, 'scheme' | 'extra'> {
  scheme: 'batch-settlement';
  extra: {
    name: string;
    version: string;
    receiverAuthorizer: Address;
    withdrawDelay: number;
    minDeposit: string;
    assetTransferMethod: 'eip3009';
    /** Corrective 402 only: the server's view of the channel. */
    channelState?: object;
    /** Corrective 402 only: the last voucher the buyer signed, so it can check the charged amount is its own. */
    voucherState?: { signedMaxClaimable: string; signature: string };
  };
}

/**
 * The batch-settlement option of a priced route (x402 `batch-settlement`): one deposit into an
 * escrow channel, then a cumulative voucher per call at the same price as the exact option.
 * @param path the requested path (accepts[].resource)
 */
const batchOption = (
  route: Pick<RouteDef, 'priceUsd' | 'summary' | 'mimeType'>,
  path: string,
  config: Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO' | 'X402_MAX_TIMEOUT_SECONDS'>,
  terms: BatchTerms,
): BatchPaymentOption => {
  const base = paymentOption(route, path, config);
  const minDeposit = BigInt(terms.minDeposit) > BigInt(base.amount) ? terms.minDeposit : base.amount;
  return {
    ...base,
    scheme: 'batch-settlement',
    extra: { ...base.extra, receiverAuthorizer: terms.receiverAuthorizer, withdrawDelay: terms.withdrawDelay, minDeposit, assetTransferMethod: 'eip3009' },
  };
};

type ChallengeRoute = Pick<RouteDef, 'id' | 'priceUsd' | 'summary' | 'mimeType' | 'method' | 'path' | 'params' | 'query' | 'output' | 'mcp' | 'family'>;
type ChallengeConfig = Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO' | 'X402_MAX_TIMEOUT_SECONDS'>;

/**
 * Built challenges by configuration: a challenge is a pure function of the route, what is bought,
 * the reason and the configuration, and building one (JSON Schemas of the bazaar extension) was most
 * of a 402's time. Bounded, so arbitrary query strings cannot grow it. Callers must not mutate them.
 */
const BUILT = new WeakMap<ChallengeConfig, Map<string, PaymentRequiredBody>>();
const MAX_BUILT = 1000;

/**
 * Builds the challenge document (cached; treat it as read-only).
 * @param url absolute URL of the request (resource.url)
 * @param error PAYMENT_REQUIRED, or the reason a presented payment was refused
 * @param offers the options the lanes offer now (lanes.ts `offersFor`); default the exact option alone
 */
const buildPaymentRequired = (
  route: ChallengeRoute,
  path: string,
  url: string,
  config: ChallengeConfig,
  error = 'PAYMENT_REQUIRED',
  offers?: ReadonlyArray<PaymentOption | BatchPaymentOption>,
): PaymentRequiredBody => {
  let built = BUILT.get(config);
  if (!built) {
    built = new Map();
    BUILT.set(config, built);
  }
  const key = `${route.id} ${path} ${url} ${error} ${offers ? JSON.stringify(offers) : ''}`;
  let doc = built.get(key);
  if (!doc) {
    doc = {
      x402Version: 2,
      error,
      resource: { url, description: route.summary, mimeType: route.mimeType, serviceName: SERVICE_NAME, tags: ['commodities', route.family] },
      // What the lanes offer, in registry order (the spec's exact option first).
      accepts: offers ? [...offers] : [paymentOption(route, path, config)],
      // payment-identifier (optional): a client that names its payment gets idempotent retries.
      extensions: { ...bazaarExtension(route, path, url), [PAYMENT_IDENTIFIER]: paymentIdentifierDeclaration() },
    };
    if (built.size >= MAX_BUILT) built.delete(built.keys().next().value!);
    built.set(key, doc);
  }
  return doc;
};

/**
 * The request header by which an x402 v1 client asks for a v1 body. A v1 client (x402-fetch 1.x)
 * reads only the 402 body and validates it strictly (its network enum has v1 names such as
 * "base-sepolia"; resource must be an absolute URL), so the spec's v2 body makes it throw before
 * paying; nothing in its first request tells it apart from a v2 client. It needs no code change:
 * `fetchWithPay(url, { headers: { 'X402-Version': '1' } })`.
 */
const V1_BODY_HEADER = 'x402-version';

/** x402 v1's PaymentRequired: the same single option, in v1's shape. */
interface V1PaymentRequiredBody {
  x402Version: 1;
  error: string;
  accepts: Array<{
    scheme: 'exact';
    network: string;
    maxAmountRequired: string;
    resource: string;
    description: string;
    mimeType: string;
    payTo: string;
    maxTimeoutSeconds: number;
    asset: string;
    extra: { name: string; version: string };
  }>;
}

/** The v1 form of a challenge: the network by its v1 name and resource as the absolute URL. */
const toV1Body = (doc: PaymentRequiredBody, network: X402Network): V1PaymentRequiredBody => ({
  x402Version: 1,
  error: doc.error,
  // v1 clients know the exact scheme only.
  accepts: doc.accepts
    .filter((a): a is PaymentOption => a.scheme === 'exact')
    .map((a) => ({
      scheme: a.scheme,
      network: usdcFor(network).v1Name,
      maxAmountRequired: a.maxAmountRequired,
      resource: doc.resource.url,
      description: a.description,
      mimeType: a.mimeType,
      payTo: a.payTo,
      maxTimeoutSeconds: a.maxTimeoutSeconds,
      asset: a.asset,
      extra: a.extra,
    })),
});

/** Standard base64 of UTF-8 JSON, the encoding of every x402 header. */
const encodeX402Header = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

const LOOPBACK = /^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])(?::\d+)?$/;

/**
 * The public base URL, from trusted names only: PUBLIC_BASE_URL, else the domain the request was
 * received on as the runtime states it (API Gateway's `requestContext.domainName`, which only routes
 * its own domains; the local server's own listening address). Never the Host header: a client
 * controls it, and discovery documents built from it are cached.
 * @example baseUrl(undefined, 'abc.execute-api.us-east-1.amazonaws.com') // 'https://abc.execute-api.us-east-1.amazonaws.com'
 */
const baseUrl = (publicBaseUrl: string | undefined, domainName: string | undefined): string => {
  if (publicBaseUrl) return publicBaseUrl.replace(/\/+$/, '');
  const host = domainName || 'localhost';
  return `${LOOPBACK.test(host) ? 'http' : 'https'}://${host}`;
};

/**
 * The absolute URL of a request, for resource.url.
 * @example resourceUrl('https://data.example.com', undefined, '/v1/prices', 'codes=CL') // 'https://data.example.com/v1/prices?codes=CL'
 */
const resourceUrl = (publicBaseUrl: string | undefined, domainName: string | undefined, path: string, rawQuery: string): string =>
  `${baseUrl(publicBaseUrl, domainName)}${path}${rawQuery ? `?${rawQuery}` : ''}`;

/** Pure x402 v2 requirements of an option (without the spec's v1 body fields), as the facilitator reads them. */
const requirementsOf = (o: PaymentOption | BatchPaymentOption): PaymentRequirements => ({
  scheme: o.scheme,
  network: o.network as PaymentRequirements['network'],
  amount: o.amount,
  asset: o.asset,
  payTo: o.payTo,
  maxTimeoutSeconds: o.maxTimeoutSeconds,
  extra: { ...o.extra },
});

export { baseUrl, batchOption, requirementsOf, buildPaymentRequired, paymentOption, encodeX402Header, resourceUrl, toV1Body, V1_BODY_HEADER };
export type { BatchPaymentOption, BatchTerms, PaymentRequiredBody, PaymentOption, V1PaymentRequiredBody };
