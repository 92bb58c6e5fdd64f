/**
 * The signed receipt of a paid answer, for every lane: what the transports add to a settled call's
 * receipt before they render it (HTTP PAYMENT-RESPONSE, MCP `_meta["x402/payment-response"]`) and
 * before a lane stores that answer for idempotent replays, so a replay carries the same receipt.
 *
 * The receipt rides in the settlement object as the offer-receipt extension places it
 * (`extensions["offer-receipt"].info.receipt`). A Pro-key call has no x402 settlement of its own;
 * it gets one stating the credits (`transaction: credits:<call id>`, payer `key:<hash prefix>`),
 * so every paid answer is provable the same way, sent apart from PAYMENT-RESPONSE (`credits`):
 * an x402 client holding a key must not read it as a payment of its own. What was charged comes from the lane registry
 * (lanes.ts: `paid`, else `booked`), in the lane's unit: USDC atomic units or credits.
 */
import { usdcFor } from './assets';
import type { Grant, PaymentDeps, Receipt, Settlement } from './lane';
import { laneOfGrant } from './lanes';
import { jwsReceiptOf, withReceipt, type Delivery } from './receipts';

/** The receipt's name for each lane (the extension leaves it to the issuer). */
const LANE_NAMES: Record<string, Delivery['lane']> = { 'x402-exact': 'exact', 'x402-batch': 'batch-settlement', pro: 'pro' };

/** A Pro key as a receipt names its payer: a prefix of the key's hash (never the key, never its hint). */
const keyPayer = (grant: Grant): string => `key:${((grant as { record?: { hash?: string } }).record?.hash ?? 'unknown').slice(0, 12)}`;

/**
 * The settled call's receipt with its signed delivery receipt; unchanged when the service has no
 * receipt signer (or a signer that cannot sign synchronously).
 * @param resourceUrl what was bought (the 402's resource.url; mcp://tool/<name> for a tool)
 * @param body the body served, exactly as sent (its SHA-256 is signed)
 */
const withDeliveryReceipt = (grant: Grant, receipt: Receipt, resourceUrl: string, body: Uint8Array | string, deps: PaymentDeps): Receipt => {
  const jws = deps.receipts?.jws;
  if (!jws) return receipt;
  const lane = laneOfGrant(deps, grant);
  const charged = lane ? ((lane.paid ?? lane.booked)(grant as never) ?? null) : null;
  const network = receipt.settlement?.network ?? deps.config.X402_NETWORK;
  const settlement: Settlement = receipt.settlement ?? { success: true, transaction: `credits:${grant.callId}`, network, payer: keyPayer(grant) };
  const credits = charged?.unit === 'credits';
  const signed = jwsReceiptOf(
    jws,
    {
      resourceUrl,
      payer: settlement.payer,
      network,
      // A batch voucher is claimed later: its receipt names the call whose voucher it is.
      transaction: settlement.transaction || `pending:${grant.callId}`,
      lane: LANE_NAMES[grant.lane] ?? (grant.lane as Delivery['lane']),
      amount: String(charged?.amount ?? 0),
      asset: credits ? 'credits' : usdcFor(deps.config.X402_NETWORK).address,
      body,
    },
    deps.now(),
  );
  return receipt.settlement ? { ...receipt, settlement: withReceipt(settlement, signed) } : { ...receipt, credits: withReceipt(settlement, signed) };
};

export { withDeliveryReceipt };
