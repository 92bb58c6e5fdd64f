/**
 * The payment module's public surface: the framework-free core, its middy adapter, the pricing
 * rule, the challenge builder (for discovery documents such as /.well-known/x402.json), the
 * ledger and reconciliation of pending settlements.
 */
export { USDC_BY_NETWORK, usdcFor } from './assets';
export type { UsdcAsset } from './assets';
export { buildPaymentRequired, paymentOption, encodeX402Header, resourceUrl } from './challenge';
export type { PaymentRequiredBody, PaymentOption } from './challenge';
export { processPayment, settlePayment, releasePayment } from './core';
export type { HttpRequestLike, HttpResponseLike, PaymentDeps, PaymentOutcome, PaymentReceipt, SettleOutcome } from './core';
export { FacilitatorUnavailableError, SettlementPendingError } from './errors';
export { createFacilitatorClient } from './facilitator';
export { DynamoPaymentLedger } from './ledger';
export type { PaymentLedger, ClaimKey, ClaimRecord, ClaimState, SaleRecord } from './ledger';
export { reconcilePendingPayments, viemChainReader, DEFAULT_RPC_URLS } from './reconcile';
export { runReconciliation } from './reconcile-job';
export type { ChainReader, ReconcileReport } from './reconcile';
