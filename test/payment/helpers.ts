/**
 * x402 test helpers: real EIP-712 signatures made with viem accounts (v1- and v2-shaped payment
 * payloads, with any field overridden to build bad payments), and a programmable fake
 * facilitator served over loopback HTTP so the production HTTPFacilitatorClient path runs.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizationTypes } from '@x402/evm';
import { getAddress, verifyTypedData, type Address, type Hex, type LocalAccount } from 'viem';
import { USDC_BY_NETWORK } from '../../shared/payment/assets';
import type { ClaimKey, NewClaim, PaymentLedger, ReconcileLedger, SaleRecord } from '../../shared/payment/ledger';
import { expect } from 'vitest';

const NETWORK = 'eip155:84532' as const;
const USDC = USDC_BY_NETWORK[NETWORK];

interface SignOptions {
  payTo: Address;
  /** Atomic units; default 10000 (0.01 USD). */
  value?: bigint;
  /** Default 0 (what v2 clients sign); v1 clients sign now - 600. */
  validAfter?: bigint;
  /** Default now + 60. */
  validBefore?: bigint;
  nonce?: Hex;
  /** EIP-712 domain overrides (a wrong name or token yields a foreign signature). */
  domain?: Partial<{ name: string; version: string; chainId: number; verifyingContract: Address }>;
  /** Signs with this account while claiming `from` = account (signature by another key). */
  signer?: LocalAccount;
  /** Overrides the authorization's `from` after signing. */
  from?: Address;
}

interface SignedAuthorization {
  authorization: { from: Address; to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex };
  signature: Hex;
}

const nowS = (): bigint => BigInt(Math.floor(Date.now() / 1000));
const randomNonce = (): Hex => `0x${randomBytes(32).toString('hex')}`;

/** Signs an EIP-3009 TransferWithAuthorization with viem's signTypedData. */
const signAuthorization = async (account: LocalAccount, o: SignOptions): Promise<SignedAuthorization> => {
  const message = {
    from: getAddress(account.address),
    to: getAddress(o.payTo),
    value: o.value ?? 10_000n,
    validAfter: o.validAfter ?? 0n,
    validBefore: o.validBefore ?? nowS() + 60n,
    nonce: o.nonce ?? randomNonce(),
  };
  const domain = { name: USDC.eip712.name, version: USDC.eip712.version, chainId: USDC.chainId, verifyingContract: USDC.address, ...o.domain };
  const signature = await (o.signer ?? account).signTypedData!({ domain, types: authorizationTypes, primaryType: 'TransferWithAuthorization', message });
  return {
    authorization: {
      from: o.from ?? message.from,
      to: message.to,
      value: message.value.toString(),
      validAfter: message.validAfter.toString(),
      validBefore: message.validBefore.toString(),
      nonce: message.nonce,
    },
    signature,
  };
};

/** The requirements a v2 client copies into `accepted` (the challenge's accepts[0]). */
const acceptedFor = (payTo: Address, amount = '10000', extra: Record<string, unknown> = {}) => ({
  scheme: 'exact',
  network: NETWORK,
  amount,
  asset: USDC.address,
  payTo: getAddress(payTo),
  maxTimeoutSeconds: 60,
  extra: { name: USDC.eip712.name, version: USDC.eip712.version },
  ...extra,
});

/** A v2 payment payload (what @x402/fetch sends in PAYMENT-SIGNATURE). */
const v2Payload = (signed: SignedAuthorization, accepted: Record<string, unknown>, url = 'http://127.0.0.1/v1/price/CL') => ({
  x402Version: 2,
  resource: { url },
  accepted,
  payload: signed,
});

/** A v1 payment payload (what v1-style clients send in X-PAYMENT). */
const v1Payload = (signed: SignedAuthorization, network = 'base-sepolia', scheme = 'exact') => ({
  x402Version: 1,
  scheme,
  network,
  payload: signed,
});

const b64 = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v), 'utf8').toString('base64');
const unb64 = (v: string | null): any => (v === null ? null : JSON.parse(Buffer.from(v, 'base64').toString('utf8')));

type Json = Record<string, unknown>;
type FacilitatorHandler = (body: {
  x402Version: number;
  paymentPayload: any;
  paymentRequirements: any;
}) => Promise<{ status?: number; body: unknown } | 'hang'>;

interface FakeFacilitator {
  url: string;
  calls: { verify: Json[]; settle: Json[]; supported: number };
  verify: FacilitatorHandler;
  settle: FacilitatorHandler;
  reset(): void;
  close(): Promise<void>;
}

const readJson = (req: IncomingMessage): Promise<any> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', reject);
  });

const txHash = (): Hex => `0x${randomBytes(32).toString('hex')}`;

/** The sale record of a claim settled by `transaction` at `settledAt`. */
const saleOf = (claim: Pick<NewClaim, 'payer' | 'nonce' | 'claimId'> & Partial<NewClaim>, transaction: string, settledAt: Date): SaleRecord => ({
  lane: 'x402-exact',
  saleId: `${claim.payer.toLowerCase()}#${claim.nonce.toLowerCase()}`,
  payer: claim.payer.toLowerCase(),
  nonce: claim.nonce.toLowerCase(),
  amount: claim.amount ?? '10000',
  asset: claim.asset ?? '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  network: claim.network ?? 'eip155:84532',
  payTo: claim.payTo ?? '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  route: claim.route ?? 'GET /v1/price/{code}',
  path: claim.path ?? '/v1/price/CL',
  transaction,
  settledAt: settledAt.toISOString(),
  requestId: claim.claimId,
});

/** Settles a held claim (as the exact lane does after a confirmed /settle), delivered or, like a reconciled one, not. */
const settleClaim = async (ledger: ReconcileLedger, key: ClaimKey, claimId: string, transaction: string, at: Date, delivered: boolean) => {
  const sale = saleOf({ ...key, claimId }, transaction, at);
  if (delivered) expect(await ledger.settle(key, claimId, { sale })).toBe('recorded');
  else expect(await ledger.resolve(key, { state: 'CLAIMED', claimId }, { state: 'SETTLED', sale })).toBe(true);
};

/** Marks a held claim PENDING, as the lane does after a /settle timeout. */
const pendClaim = async (ledger: PaymentLedger, key: ClaimKey, claimId: string, transaction = '') => {
  await ledger.markPending(key, claimId, { transaction, reason: 'facilitator_timeout' });
};

/** A ledger claim of a 0.01 USD price call on Base Sepolia, as the core writes it. */
const newClaim = (payer: string, nonce: string, claimedAt: Date, claimId = 'req-1', payload = '{}'): NewClaim => ({
  payer: payer.toLowerCase(),
  nonce,
  claimId,
  route: 'GET /v1/price/{code}',
  path: '/v1/price/CL',
  network: 'eip155:84532',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  amount: '10000',
  validBefore: Math.floor(claimedAt.getTime() / 1000) + 60,
  claimedAt: claimedAt.toISOString(),
  payload,
});

/**
 * Default behaviour of a healthy facilitator: it checks the EIP-712 signature against
 * authorization.from as x402's exact EVM facilitator does (viem's verifyTypedData, same reason
 * string), finds everything else valid, and settles with a fresh transaction hash.
 */
const okVerify: FacilitatorHandler = async (b) => {
  const { authorization, signature } = b.paymentPayload.payload;
  const r = b.paymentRequirements;
  const signed = await verifyTypedData({
    address: authorization.from,
    domain: { name: r.extra?.name, version: r.extra?.version, chainId: Number(String(r.network).split(':')[1]), verifyingContract: r.asset },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
    signature,
  }).catch(() => false);
  return {
    body: signed ? { isValid: true, payer: authorization.from } : { isValid: false, invalidReason: 'invalid_exact_evm_signature', payer: authorization.from },
  };
};
const okSettle: FacilitatorHandler = async (b) => ({
  body: { success: true, transaction: txHash(), network: b.paymentRequirements.network, payer: b.paymentPayload.payload.authorization.from },
});

/** A facilitator whose /verify and /settle answers each test sets. */
const startFakeFacilitator = async (): Promise<FakeFacilitator> => {
  const hanging: ServerResponse[] = [];
  const fake: FakeFacilitator = {
    url: '',
    calls: { verify: [], settle: [], supported: 0 },
    verify: okVerify,
    settle: okSettle,
    reset() {
      fake.verify = okVerify;
      fake.settle = okSettle;
      fake.calls = { verify: [], settle: [], supported: 0 };
    },
    close: async () => undefined,
  };
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '').replace(/\/+$/, '');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && path === '/supported') {
      fake.calls.supported++;
      return send(200, { kinds: [{ x402Version: 2, scheme: 'exact', network: NETWORK }], extensions: [], signers: {} });
    }
    if (req.method === 'POST' && (path === '/verify' || path === '/settle')) {
      const body = await readJson(req);
      fake.calls[path === '/verify' ? 'verify' : 'settle'].push(body);
      const out = await (path === '/verify' ? fake.verify : fake.settle)(body);
      if (out === 'hang') {
        hanging.push(res);
        return;
      }
      return send(out.status ?? 200, out.body);
    }
    send(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return fake;
};

/** A loopback port with nothing listening (a facilitator that is down). */
const closedPortUrl = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
};

export {
  saleOf,
  settleClaim,
  pendClaim,
  newClaim,
  USDC,
  nowS,
  randomNonce,
  signAuthorization,
  acceptedFor,
  v1Payload,
  v2Payload,
  b64,
  unb64,
  txHash,
  startFakeFacilitator,
  closedPortUrl,
};
export type { SignOptions, SignedAuthorization, FakeFacilitator, FacilitatorHandler };
