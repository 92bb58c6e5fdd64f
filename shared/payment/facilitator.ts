/**
 * The facilitator port: @x402/core's HTTPFacilitatorClient (standard /verify, /settle,
 * /supported API, zod-checked answers) with our timeout, plus the mapping of its answers and
 * failures onto what the service tells the payer. Protocol types come from @x402/core.
 */
import { HTTPFacilitatorClient, type FacilitatorClient, type FacilitatorConfig } from '@x402/core/http';
import { FacilitatorTimeoutError, SettleError, VerifyError, type SettleResponse } from '@x402/core/types';
import type { Config } from '../config';
import { FacilitatorAuthError } from './facilitator-auth';

/**
 * The HTTP client of the configured facilitator. Every call is bounded by
 * X402_FACILITATOR_TIMEOUT_MS, so verify + handler + settle fit in API Gateway's 29 s.
 * Hosted facilitators that need credentials (Coinbase CDP) get them from Secrets Manager
 * through `createAuthHeaders` (facilitator-auth.ts); nothing secret sits in the environment.
 */
const createFacilitatorClient = (
  config: Pick<Config, 'X402_FACILITATOR_URL' | 'X402_FACILITATOR_TIMEOUT_MS'>,
  createAuthHeaders?: FacilitatorConfig['createAuthHeaders'],
): FacilitatorClient =>
  new HTTPFacilitatorClient({
    url: config.X402_FACILITATOR_URL,
    timeoutMs: config.X402_FACILITATOR_TIMEOUT_MS,
    ...(createAuthHeaders ? { createAuthHeaders } : {}),
  });

/** The facilitator's reason strings (x402 2.27 `exact` EVM) in the service's vocabulary. */
const FACILITATOR_REASONS: Readonly<Record<string, string>> = Object.freeze({
  invalid_exact_evm_insufficient_balance: 'insufficient_funds',
  insufficient_funds: 'insufficient_funds',
  invalid_exact_evm_nonce_already_used: 'nonce_already_used',
  invalid_exact_evm_signature: 'invalid_signature',
  invalid_exact_evm_payload_signature: 'invalid_signature',
  invalid_exact_evm_payload_authorization_valid_before: 'authorization_expired',
  invalid_exact_evm_payload_authorization_valid_after: 'authorization_not_yet_valid',
  invalid_exact_evm_recipient_mismatch: 'pay_to_mismatch',
  invalid_exact_evm_payload_authorization_value_mismatch: 'amount_mismatch',
  invalid_exact_evm_network_mismatch: 'network_mismatch',
  invalid_exact_evm_scheme: 'scheme_mismatch',
});

/** Our reason for a facilitator's refusal (its own string stays in details.facilitator_reason). */
const reasonFromFacilitator = (facilitatorReason: string | undefined, fallback: string): string =>
  (facilitatorReason && FACILITATOR_REASONS[facilitatorReason]) || fallback;

/** How a failed facilitator call ended, as far as money is concerned. */
type CallFailure =
  /** The facilitator gave a verdict on a non-2xx answer (VerifyError / SettleError with a 4xx). */
  | { kind: 'verdict'; reason: string | undefined; transaction?: string }
  /** Nothing reached the facilitator (connection refused, DNS): nothing can have been submitted. */
  | { kind: 'not_sent'; message: string }
  /** The call timed out or broke mid-way: the facilitator may have acted. */
  | { kind: 'unknown'; message: string; timeout: boolean };

// Failures before a connection exists; a reset or timeout mid-request may have reached the facilitator.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Walks the cause chain for a network error code (undici puts it on `cause`). */
const errorCodeOf = (err: unknown): string | undefined => {
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};

/**
 * Classifies a thrown facilitator error.
 * @param err what HTTPFacilitatorClient threw
 */
const classifyFacilitatorError = (err: unknown): CallFailure => {
  // The credentials could not be had: the client throws before it sends anything.
  if (err instanceof FacilitatorAuthError) return { kind: 'not_sent', message: err.message };
  if (err instanceof FacilitatorTimeoutError) return { kind: 'unknown', message: err.message, timeout: true };
  if (err instanceof VerifyError && err.statusCode >= 400 && err.statusCode < 500) return { kind: 'verdict', reason: err.invalidReason };
  if (err instanceof SettleError && err.statusCode >= 400 && err.statusCode < 500) {
    return { kind: 'verdict', reason: err.errorReason, ...(err.transaction ? { transaction: err.transaction } : {}) };
  }
  const code = errorCodeOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (code && NOT_SENT_CODES.has(code)) return { kind: 'not_sent', message: `${code}: ${message}` };
  return { kind: 'unknown', message, timeout: false };
};

/**
 * A settle answer whose outcome is not known: the transaction was sent but not confirmed, or it
 * was mined without the expected Transfer log. Money may have moved, so it is never "unpaid".
 */
const isSettlementPending = (r: SettleResponse): boolean =>
  !r.success && (r.errorReason === 'settlement_pending' || r.errorReason === 'invalid_exact_evm_transfer_event_mismatch');

/**
 * Refusals the official `exact` EVM facilitator gives before it sends a transaction: its own
 * verification of the payment, a signature it cannot parse, a simulation that reverts. A transfer
 * that was sent and then failed, or whose answer was lost (`transaction_failed`), is not among them,
 * nor is `nonce_already_used` (an earlier, unanswered attempt may have used it): those stay pending
 * until the chain says whether the authorization was used.
 */
const REFUSED_BEFORE_SENDING: ReadonlySet<string> = new Set([
  'insufficient_funds',
  'invalid_exact_evm_insufficient_balance',
  'invalid_exact_evm_signature',
  'invalid_exact_evm_payload_signature',
  'invalid_exact_evm_payload_authorization_valid_before',
  'invalid_exact_evm_payload_authorization_valid_after',
  'invalid_exact_evm_recipient_mismatch',
  'invalid_exact_evm_payload_authorization_value_mismatch',
  'invalid_exact_evm_authorization_value',
  'invalid_exact_evm_network_mismatch',
  'invalid_exact_evm_scheme',
  'invalid_exact_evm_token_name_mismatch',
  'invalid_exact_evm_token_version_mismatch',
  'invalid_exact_evm_eip3009_not_supported',
  'invalid_exact_evm_transaction_simulation_failed',
  'invalid_exact_evm_failed_to_parse_signature',
  'invalid_exact_evm_missing_eip712_domain',
  'asset_not_deployed_contract',
  'eip6492_factory_not_allowed',
  'smart_wallet_deployment_failed',
]);

/**
 * Whether a failed settle answer proves that nothing was sent (the authorization is unused): a
 * refusal of the facilitator's own checks, with no transaction. Everything else may have moved money.
 */
const isSettledBeforeSending = (r: Pick<SettleResponse, 'success' | 'errorReason' | 'transaction'>): boolean =>
  !r.success && !r.transaction && r.errorReason !== undefined && REFUSED_BEFORE_SENDING.has(r.errorReason);

export { createFacilitatorClient, classifyFacilitatorError, reasonFromFacilitator, isSettlementPending, isSettledBeforeSending };
export type { CallFailure, FacilitatorClient };
