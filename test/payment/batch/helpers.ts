/**
 * Batch-lane test helpers: the lane over the local chain's facilitator (HTTP, with a count of the
 * calls it receives), the official @x402/evm batch-settlement client scheme for a development
 * account (unmodified; its channel storage kept so a test can drop it as a restarted buyer), and
 * the chain reads a test asserts money with.
 */
import { x402Client } from '@x402/core/client';
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { BATCH_SETTLEMENT_ADDRESS, toClientEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme as BatchClientScheme, computeChannelId, InMemoryClientChannelStorage, signVoucher } from '@x402/evm/batch-settlement/client';
import { getAddress, type Address, type HDAccount, type Hex } from 'viem';
import type { LocalPaymentNetwork } from '../../../infra/local/chain';
import type { BatchChannelStore } from '../../../shared/payment/batch/channel-store';
import { createBatchLane, type BatchPaymentOption } from '../../../shared/payment/batch/lane';
import { batchLaneConfig, type BatchLaneConfig } from '../../../shared/payment/batch/config';
import { paymentOption } from '../../../shared/payment/challenge';
import { ROUTES } from '../../../shared/routes/table';

const PRICE_ROUTE = ROUTES.find((r) => r.id === 'GET /v1/price/{code}')!;
const DECISION_ROUTE = ROUTES.find((r) => r.id === 'GET /v1/decision/all')!;

/** Counts the facilitator calls the lane makes, by kind. */
const countingFacilitator = (url: string) => {
  const inner = new HTTPFacilitatorClient({ url, timeoutMs: 20_000 });
  const calls = { verify: 0, settle: 0 };
  return {
    calls,
    verify: (p: PaymentPayload, r: PaymentRequirements) => {
      calls.verify++;
      return inner.verify(p, r);
    },
    settle: (p: PaymentPayload, r: PaymentRequirements) => {
      calls.settle++;
      return inner.settle(p, r);
    },
    getSupported: () => inner.getSupported(),
  };
};

/** The lane's configuration for the local network (pay-to development account 1). */
const laneConfigFor = (net: LocalPaymentNetwork, overrides: Partial<Omit<BatchLaneConfig, 'network' | 'payTo' | 'receiverAuthorizer'>> = {}) =>
  batchLaneConfig(
    { X402_NETWORK: net.chain.network, X402_PAY_TO: net.payTo, X402_MAX_TIMEOUT_SECONDS: 60 },
    net.facilitator.receiverAuthorizer.address,
    overrides,
  );

interface Clock {
  now: () => Date;
  advance(ms: number): void;
}

/** A clock that follows real time plus an offset a test can move forward. */
const offsetClock = (): Clock => {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms) => {
      offset += ms;
    },
  };
};

const laneOn = (
  net: LocalPaymentNetwork,
  store: BatchChannelStore,
  opts: { clock?: Clock; config?: Partial<Omit<BatchLaneConfig, 'network' | 'payTo' | 'receiverAuthorizer'>> } = {},
) => {
  const facilitator = countingFacilitator(net.facilitator.url);
  const clock = opts.clock ?? offsetClock();
  const lane = createBatchLane({ config: laneConfigFor(net, opts.config), store, facilitator, now: clock.now });
  return { lane, facilitator, clock };
};

/** The 402 a server would send for a route: the exact option first, then the batch one. */
const paymentRequiredFor = (
  batch: BatchPaymentOption,
  net: LocalPaymentNetwork,
  route = PRICE_ROUTE,
  path = '/v1/price/CL',
  error = 'PAYMENT_REQUIRED',
): PaymentRequired => ({
  x402Version: 2,
  error,
  resource: { url: `http://127.0.0.1${path}`, description: route.summary, mimeType: 'application/json' },
  accepts: [
    paymentOption(route, path, { X402_NETWORK: net.chain.network, X402_PAY_TO: net.payTo, X402_MAX_TIMEOUT_SECONDS: 60 }) as unknown as PaymentRequirements,
    batch as unknown as PaymentRequirements,
  ],
});

/** The official batch-settlement client of a development account (x402Client with only that scheme). */
const officialBuyer = (net: LocalPaymentNetwork, account: HDAccount, opts: { depositMultiplier?: number } = {}) => {
  const signer = toClientEvmSigner(account, net.chain.publicClient as never);
  const storage = new InMemoryClientChannelStorage();
  const scheme = new BatchClientScheme(signer, {
    storage,
    ...(opts.depositMultiplier ? { depositPolicy: { depositMultiplier: opts.depositMultiplier } } : {}),
  });
  const client = new x402Client().register(net.chain.network, scheme);
  return {
    account,
    scheme,
    storage,
    client,
    /** What @x402/fetch sends: a payload for the 402's accepts. */
    pay: (required: PaymentRequired) => client.createPaymentPayload(required),
    /** What @x402/fetch does with the answer: the scheme's hooks update its channel state (or recover from a corrective 402). */
    answer: (payload: PaymentPayload, result: { settleResponse?: SettleResponse; paymentRequired?: PaymentRequired }) =>
      client.handlePaymentResponse({ paymentPayload: payload, requirements: payload.accepted, ...result }),
  };
};

/** A voucher payload signed by `account` for any cumulative amount (what a misbehaving buyer could send). */
const handVoucher = async (
  net: LocalPaymentNetwork,
  buyer: ReturnType<typeof officialBuyer>,
  option: BatchPaymentOption,
  cumulative: bigint,
  signer?: HDAccount,
): Promise<PaymentPayload> => {
  const requirements = option as unknown as PaymentRequirements;
  const channelConfig = buyer.scheme.buildChannelConfig(requirements);
  const channelId = computeChannelId(channelConfig, net.chain.network);
  const voucher = await signVoucher(
    toClientEvmSigner(signer ?? buyer.account, net.chain.publicClient as never),
    channelId,
    cumulative.toString(),
    net.chain.network,
  );
  return { x402Version: 2, accepted: requirements, payload: { type: 'voucher', channelConfig, voucher } } as PaymentPayload;
};

/** The escrow's view of a channel and of the receiver. */
const escrowAbi = [
  {
    type: 'function',
    name: 'channels',
    stateMutability: 'view',
    inputs: [{ name: 'id', type: 'bytes32' }],
    outputs: [
      { name: 'balance', type: 'uint128' },
      { name: 'totalClaimed', type: 'uint128' },
    ],
  },
  {
    type: 'function',
    name: 'receivers',
    stateMutability: 'view',
    inputs: [
      { name: 'r', type: 'address' },
      { name: 't', type: 'address' },
    ],
    outputs: [
      { name: 'totalClaimed', type: 'uint128' },
      { name: 'totalSettled', type: 'uint128' },
    ],
  },
] as const;

const readChannel = async (net: LocalPaymentNetwork, channelId: string) => {
  const [balance, totalClaimed] = await net.chain.publicClient.readContract({
    address: BATCH_SETTLEMENT_ADDRESS,
    abi: escrowAbi,
    functionName: 'channels',
    args: [channelId as Hex],
  });
  return { balance, totalClaimed };
};

const readReceiver = async (net: LocalPaymentNetwork, receiver: Address = net.payTo) => {
  const [totalClaimed, totalSettled] = await net.chain.publicClient.readContract({
    address: BATCH_SETTLEMENT_ADDRESS,
    abi: escrowAbi,
    functionName: 'receivers',
    args: [getAddress(receiver), net.chain.asset],
  });
  return { totalClaimed, totalSettled };
};

const callOf = (path = '/v1/price/CL', route = PRICE_ROUTE) => ({ route: route.id, path, requestId: `req-${Math.random().toString(36).slice(2)}` });

export {
  PRICE_ROUTE,
  DECISION_ROUTE,
  countingFacilitator,
  laneConfigFor,
  laneOn,
  paymentRequiredFor,
  officialBuyer,
  handVoucher,
  readChannel,
  readReceiver,
  callOf,
};
export type { Clock };
