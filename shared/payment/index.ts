/**
 * The payment module's public surface: the framework-free core, its middy adapter, the pricing
 * rule, the challenge builder (for discovery documents such as /.well-known/x402.json), the
 * ledger and reconciliation of pending settlements.
 */
export type { UsdcAsset } from './assets';
export { paymentOption } from './challenge';
export type { PaymentRequiredBody, PaymentOption } from './challenge';
export type { HttpRequestLike, HttpResponseLike, PaymentDeps, PaymentOutcome, PaymentReceipt, SettleOutcome } from './core';
export type { PaymentLedger, ClaimKey, ClaimRecord, ClaimState, SaleRecord } from './ledger';
export type { ChainReader, ReconcileReport } from './reconcile';
