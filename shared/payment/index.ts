/**
 * The payment module's public surface: the one charge step and its lanes' shapes, the challenge
 * builder (for discovery documents such as /.well-known/x402.json), the ledger and reconciliation.
 */
export type { UsdcAsset } from './assets';
export { paymentOption } from './challenge';
export type { PaymentRequiredBody, PaymentOption } from './challenge';
export { charge, settle, release, LANES } from './charge';
export type { ChargeOutcome, Credentials, Grant, Lane, LaneId, PaidCall, PaymentDeps, Receipt, Refusal, SettleOutcome } from './lane';
export type { PaymentLedger, ClaimKey, ClaimRecord, ClaimState } from './ledger';
export type { SaleRecord } from './sales';
export type { ChainReader, ReconcileReport } from './reconcile';
