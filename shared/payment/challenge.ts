/**
 * The 402 challenge (SPEC.md "Authentication"): one JSON document sent both as the body and,
 * base64-encoded, as the `PAYMENT-REQUIRED` header. It is a valid x402 v2 PaymentRequired
 * (official v2 clients read only the header: top-level `resource` object, accepts[] with
 * amount/asset/payTo/maxTimeoutSeconds/extra), and each accepts[] item also carries the v1
 * fields the spec lists (maxAmountRequired, resource, description, mimeType) for clients that
 * read the body.
 *
 * `resource.url` is absolute (PUBLIC_BASE_URL, else the request's proto + host) because x402
 * clients treat it as a URL; accepts[].resource is the requested path, as the spec says.
 */
import type { PaymentRequirementsV2 } from '@x402/core/schemas';
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
  accepts: PaymentOption[];
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

/**
 * Builds the challenge document.
 * @param url absolute URL of the request (resource.url)
 * @param error PAYMENT_REQUIRED, or the reason a presented payment was refused
 */
const buildPaymentRequired = (
  route: Pick<RouteDef, 'id' | 'priceUsd' | 'summary' | 'mimeType' | 'method' | 'path' | 'params' | 'query' | 'output' | 'mcp' | 'family'>,
  path: string,
  url: string,
  config: Pick<Config, 'X402_NETWORK' | 'X402_PAY_TO' | 'X402_MAX_TIMEOUT_SECONDS'>,
  error = 'PAYMENT_REQUIRED',
): PaymentRequiredBody => ({
  x402Version: 2,
  error,
  resource: { url, description: route.summary, mimeType: route.mimeType, serviceName: SERVICE_NAME, tags: ['commodities', route.family] },
  accepts: [paymentOption(route, path, config)],
  // payment-identifier (optional): a client that names its payment gets idempotent retries.
  extensions: { ...bazaarExtension(route, path, url), [PAYMENT_IDENTIFIER]: paymentIdentifierDeclaration() },
});

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
  accepts: doc.accepts.map((a) => ({
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

const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$/;
const LOOPBACK = /^(?:localhost|127\.\d+\.\d+\.\d+|\[::1\])(?::\d+)?$/;

/**
 * The absolute URL of a request, for resource.url.
 * @param publicBaseUrl PUBLIC_BASE_URL when configured (wins over request headers)
 * @param headers lower-cased request headers (host, x-forwarded-proto)
 * @param fallbackHost API Gateway's domain name when the Host header is missing or odd
 * @example resourceUrl(undefined, { host: 'api.example.com' }, undefined, '/v1/price/CL', '') // 'https://api.example.com/v1/price/CL'
 */
const resourceUrl = (
  publicBaseUrl: string | undefined,
  headers: Readonly<Record<string, string | undefined>>,
  fallbackHost: string | undefined,
  path: string,
  rawQuery: string,
): string => {
  const query = rawQuery ? `?${rawQuery}` : '';
  if (publicBaseUrl) return `${publicBaseUrl.replace(/\/+$/, '')}${path}${query}`;
  // A Host header is client-controlled: only a well-formed host name is echoed back.
  const host = [headers.host, fallbackHost].find((h): h is string => !!h && HOST.test(h)) ?? 'localhost';
  const forwarded = headers['x-forwarded-proto']?.split(',')[0]?.trim();
  const proto = forwarded === 'http' || forwarded === 'https' ? forwarded : LOOPBACK.test(host) ? 'http' : 'https';
  return `${proto}://${host}${path}${query}`;
};

export { buildPaymentRequired, paymentOption, encodeX402Header, resourceUrl, toV1Body, V1_BODY_HEADER };
export type { PaymentRequiredBody, PaymentOption, V1PaymentRequiredBody };
