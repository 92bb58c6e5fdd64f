/**
 * Response-body schemas, one per body shape, used as the route table's `output`: they type the
 * handlers, validate every body in tests (and in dev stage at run time), and are the 200 schemas
 * of OpenAPI and the MCP tools' outputSchema. Output schemas hold no transforms, so they convert
 * to JSON Schema as written. A schema gets its registry id (its OpenAPI component) with
 * `.register(z.globalRegistry, …)` on the schema just built, not with a `z.meta` check: a check
 * travels into every `z.extend` copy (which would then publish under the parent's id) and makes
 * `z.pick`/`z.omit`/`z.partial` throw.
 */
export { ServedObservation } from './common';
export { PricesBundleBody, HistoryBody } from './price';
export { CurveBody, CalendarSpreadBody } from './curve';
export { InventoryBundleView, InventorySeriesView } from './inventory';
export { CotBody } from './cot';
export { SpreadBody } from './spreads';
export { WasdeView, CropProgressView, ExportSalesView, UsgsView } from './fundamentals';
export { SnapshotView, SnapshotAllView } from './snapshot';
export { DecisionView, DecisionAllView } from './decision';
export {
  HealthBody,
  CatalogBody,
  CalendarBody,
  OpenApiBody,
  AgentCardBody,
  X402CatalogBody,
  McpToolListBody,
  McpServerJsonBody,
  CheckoutBody,
  WebhookAckBody,
} from './discovery';
export { ErrorBody, PaymentRequiredBody } from './errors';
