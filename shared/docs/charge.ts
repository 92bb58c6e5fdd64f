/**
 * What a document says a route costs under this deployment's configuration. One source for
 * "charged or not": `isChargeable`, which the live call, the catalog, /.well-known/x402 and MCP
 * use too, so the curve and calendar-spread stubs (free while indicative futures are off) are free
 * in llms.txt, SKILL.md, OpenAPI and the agent card as well.
 */
import type { Config } from '../config';
import { isChargeable, type RouteDef } from '../routes/table';

/** The settings the documents depend on: which routes charge, and the network payments are made on. */
type DocsConfig = Pick<Config, 'INDICATIVE_FUTURES' | 'X402_NETWORK'>;

/** The USD price a call is charged under this configuration; null while it is free. */
const chargedUsd = (r: Pick<RouteDef, 'priceKey' | 'freeWhen' | 'priceUsd'>, config: Pick<Config, 'INDICATIVE_FUTURES'>): string | null =>
  isChargeable(r, config) ? r.priceUsd : null;

/** How a document names a free call: a stub says why it is free. */
const freeText = (r: Pick<RouteDef, 'freeWhen'>): string => (r.freeWhen ? 'free (an explicit stub while indicative futures are off)' : 'free');

export { chargedUsd, freeText };
export type { DocsConfig };
