/** Bodies of refusals: the error body of every non-2xx answer and the x402 PaymentRequired object (402, MCP tool results). */
import * as z from '../zod';

const ErrorBody = z
  .strictObject({
    error: z.strictObject({
      code: z.string(),
      message: z.string(),
      retryable: z.boolean(),
      request_id: z.string(),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .register(z.globalRegistry, { id: 'Error', description: 'Every error answer: a stable code, a message, whether a retry can succeed, and details.' });

const optionFields = {
  network: z.string(),
  amount: z.string().check(z.regex(/^\d+$/)),
  maxAmountRequired: z.string().check(z.regex(/^\d+$/)),
  resource: z.string(),
  description: z.string(),
  mimeType: z.string(),
  payTo: z.string(),
  asset: z.string(),
  maxTimeoutSeconds: z.int(),
};

/** x402 `exact`: one signed USDC transfer authorization per call, settled on chain before the answer. */
const ExactOption = z.object({ scheme: z.literal('exact'), ...optionFields, extra: z.object({ name: z.string(), version: z.string() }) });

/** x402 `batch-settlement`: a deposit into an escrow channel once, then a cumulative voucher per call. */
const BatchOption = z.object({
  scheme: z.literal('batch-settlement'),
  ...optionFields,
  extra: z.object({
    name: z.string(),
    version: z.string(),
    receiverAuthorizer: z.string(),
    withdrawDelay: z.int(),
    minDeposit: z.string().check(z.regex(/^\d+$/)),
    assetTransferMethod: z.string(),
  }),
});

/**
 * Any other x402 scheme a payment lane offers (shared/payment/lanes.ts): the fields every x402
 * option has, its own terms in `extra`. A lane added to the registry is listed without a change here.
 */
const OtherSchemeOption = z.object({
  scheme: z.string().check(z.refine((s) => s !== 'exact' && s !== 'batch-settlement', 'exact and batch-settlement options have their own shape')),
  ...optionFields,
  extra: z.record(z.string(), z.unknown()),
});

const PaymentOption = z.union([z.discriminatedUnion('scheme', [ExactOption, BatchOption]), OtherSchemeOption]);

const PaymentRequiredBody = z
  .object({
    x402Version: z.int(),
    error: z.string(),
    resource: z.object({
      url: z.string(),
      description: z.string(),
      mimeType: z.string(),
      serviceName: z.optional(z.string()),
      tags: z.optional(z.array(z.string())),
    }),
    accepts: z.array(PaymentOption).check(z.minLength(1)),
    /** x402 extensions declared by the challenge (bazaar: discovery metadata for indexers). */
    extensions: z.optional(z.record(z.string(), z.unknown())),
  })
  .register(z.globalRegistry, {
    id: 'PaymentRequired',
    description: 'x402 payment requirements: what to sign (amount in USDC atomic units) and where to send it.',
  });

export { ErrorBody, PaymentRequiredBody };
