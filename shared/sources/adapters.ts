/**
 * Source adapters by registry id. Every id of the registry must have one (a test checks it).
 */
import { eiaSpot } from './eia-spot';
import { fred } from './fred';
import type { SourceAdapter } from './types';

const ADAPTERS: Readonly<Record<string, SourceAdapter>> = Object.freeze({
  [eiaSpot.def.id]: eiaSpot,
  [fred.def.id]: fred,
});

/** The adapter of a source id, or undefined. */
const findAdapter = (id: string): SourceAdapter | undefined => ADAPTERS[id];

export { ADAPTERS, findAdapter };
