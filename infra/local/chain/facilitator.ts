/**
 * A local x402 facilitator: @x402/core's x402Facilitator with @x402/evm's facilitator-side
 * ExactEvmScheme and BatchSettlementEvmScheme over a viem wallet + public client of the local
 * chain, served over loopback HTTP with the standard API (POST /verify, POST /settle, GET
 * /supported). The service talks to it through the same HTTPFacilitatorClient it uses against a
 * hosted facilitator, so the production client path is exercised end to end.
 *
 * For batch settlement it is also the channels' receiver authorizer (as hosted facilitators
 * offer): /supported advertises its address, and it signs the claim and refund authorizations the
 * service leaves unsigned, so the service holds no key.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { PaymentPayloadSchema, PaymentRequirementsSchema } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/facilitator';
import { registerExactEvmScheme } from '@x402/evm/exact/facilitator';
import { createWalletClient, publicActions, toHex, type HDAccount, type NonceManager } from 'viem';
import { getTransactionCount } from 'viem/actions';
import * as z from '../../../shared/zod';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { DEV_MNEMONIC, localBaseSepolia, RECEIPT_POLL_MS, type LocalChain } from './chain';
import { httpWithEstimateRetry } from './estimate-retry';
import { readBody } from '../read-body';

interface LocalFacilitator {
  url: string;
  /** The facilitator instance, so tests can add hooks (onBeforeSettle …). */
  facilitator: x402Facilitator;
  /** The account that submits settlements and pays their gas. */
  account: HDAccount;
  /** The batch-settlement receiver authorizer: signs claims and refunds of channels that name it. */
  receiverAuthorizer: HDAccount;
  close(): Promise<void>;
}

interface LocalFacilitatorOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Settlement signer; default development account 0. */
  account?: HDAccount;
  /** Receipt wait bound; a settle that exceeds it answers `settlement_pending`. */
  confirmationTimeoutMs?: number;
  /** Batch-settlement receiver authorizer; default the mnemonic's account 10 (a signing key only, never funded). */
  receiverAuthorizer?: HDAccount;
}

/** The body of /verify and /settle (x402 facilitator API). */
const FacilitatorRequestSchema = z.object({
  x402Version: z.int(),
  paymentPayload: z.unknown(),
  paymentRequirements: z.unknown(),
});

/**
 * Nonces of the facilitator's account, for sends made one at a time (`oneAtATime`): ganache mining
 * on a block time answers the "pending" transaction count without the transactions waiting in its
 * pool, so the count kept here is the truth until the chain's is ahead of it. A send that fails
 * (viem calls `reset` with its nonce) was the only one outstanding, so its nonce is the next one:
 * no gap stalls the account, and no nonce is handed out twice while a send is in flight.
 */
const localNonceManager = (): NonceManager => {
  let next = 0;
  return {
    async consume({ address, client }) {
      next = Math.max(next, await getTransactionCount(client, { address, blockTag: 'pending' }));
      return next++;
    },
    increment: () => undefined,
    get: async ({ address, client }) => Math.max(next, await getTransactionCount(client, { address, blockTag: 'pending' })),
    reset: ({ nonce }) => {
      if (nonce !== undefined && nonce < next) next = nonce;
    },
  };
};

/**
 * Runs the account's sends one at a time (nonce, gas estimate, signature, broadcast), not their
 * receipt waits. Concurrent sends left nonce gaps: a send whose gas estimate was still in flight
 * held nonce n while n+1… reached ganache, which (eager instamine) answers those only once n is
 * mined; every send then outlived viem's 10 s timeout and the burst's settlements were re-sent a
 * lease later (a 24-call burst took 150 s). One key, one queue, as a hosted facilitator's key does.
 * So one stalled send stalls the queue: the transport asks an unanswered gas estimate again
 * (./estimate-retry.ts) rather than wait out viem's 10 s.
 */
const oneAtATime = () => {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(send: () => Promise<T>): Promise<T> => {
    const run = tail.then(send, send);
    tail = run.catch(() => undefined);
    return run;
  };
};

/** A batch-settlement claim of 100 vouchers is about 70 KB. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * Requirements with maxTimeoutSeconds 0 read as 1, for validation only. @x402/evm's channel
 * manager authors its claim, settle and refund payloads with `maxTimeoutSeconds: 0` (no buyer is
 * waiting), which @x402/core's schema refuses; the reference facilitators take them, and so does this one.
 */
const withoutZeroTimeout = (requirements: unknown): unknown => {
  const r = requirements as { maxTimeoutSeconds?: unknown } | undefined;
  return r?.maxTimeoutSeconds === 0 ? { ...r, maxTimeoutSeconds: 1 } : r;
};

const readJson = async (req: IncomingMessage): Promise<unknown> => JSON.parse((await readBody(req, MAX_BODY_BYTES)).toString('utf8'));

/**
 * Starts the facilitator for the local chain's network (eip155:84532).
 * @example const f = await startLocalFacilitator(chain); // X402_FACILITATOR_URL = f.url
 */
const startLocalFacilitator = async (chain: LocalChain, opts: LocalFacilitatorOptions = {}): Promise<LocalFacilitator> => {
  const account = opts.account ?? chain.accounts[0]!;
  const receiverAuthorizer = opts.receiverAuthorizer ?? mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 10 });
  const sender = privateKeyToAccount(toHex(account.getHdKey().privateKey!), { nonceManager: localNonceManager() });
  const client = createWalletClient({
    account: sender,
    chain: localBaseSepolia(chain.rpcUrl),
    transport: httpWithEstimateRetry(chain.rpcUrl),
    pollingInterval: RECEIPT_POLL_MS,
  }).extend(publicActions);
  const queued = oneAtATime();
  const signer = toFacilitatorEvmSigner(
    {
      ...(client as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]),
      address: account.address,
      writeContract: (args) => queued(() => client.writeContract(args as never)),
      sendTransaction: (args) => queued(() => client.sendTransaction(args as never)),
    },
    { confirmationTimeoutMs: opts.confirmationTimeoutMs ?? 10_000 },
  );
  const facilitator = registerExactEvmScheme(new x402Facilitator(), { signer, networks: chain.network });
  facilitator.register(chain.network, new BatchSettlementEvmScheme(signer, receiverAuthorizer));

  const answer = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const server: Server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
    try {
      if (req.method === 'GET' && path === '/supported') return answer(res, 200, facilitator.getSupported());
      if (req.method === 'POST' && (path === '/verify' || path === '/settle')) {
        const body = FacilitatorRequestSchema.safeParse(await readJson(req));
        const sent = body.data?.paymentPayload as { accepted?: unknown } | undefined;
        const payload = PaymentPayloadSchema.safeParse(sent && { ...sent, accepted: withoutZeroTimeout(sent.accepted) });
        const requirements = PaymentRequirementsSchema.safeParse(withoutZeroTimeout(body.data?.paymentRequirements));
        if (!body.success || !payload.success || !requirements.success) {
          return answer(res, 400, { error: 'invalid_request', message: 'expected {x402Version, paymentPayload, paymentRequirements}' });
        }
        const p = body.data.paymentPayload as PaymentPayload;
        const r = body.data.paymentRequirements as PaymentRequirements;
        return answer(res, 200, path === '/verify' ? await facilitator.verify(p, r) : await facilitator.settle(p, r));
      }
      return answer(res, 404, { error: 'not_found' });
    } catch (err) {
      // An exception is a facilitator fault, not a payment verdict: the client sees a 500.
      return answer(res, 500, { error: 'facilitator_error', message: err instanceof Error ? err.message : String(err) });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    facilitator,
    account,
    receiverAuthorizer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
};

export { startLocalFacilitator };
export type { LocalFacilitator, LocalFacilitatorOptions };
