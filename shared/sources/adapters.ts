/**
 * Source adapters by registry id. Every id of the registry must have one (a test checks it).
 */
import { eiaSpot } from './eia-spot';
import { fred } from './fred';
import { eiaGasStorage, eiaPetroleum } from './eia-inventory';
import { cftcCot } from './cftc-cot';
import { worldbank } from './worldbank';
import { usgsMcs } from './usgs-mcs';
import { usdaWasde } from './usda-wasde';
import { usdaNassCropProgress } from './usda-nass-crop-progress';
import { usdaFasEsr } from './usda-fas-esr';
import type { SourceAdapter } from './types';

const ADAPTERS: Readonly<Record<string, SourceAdapter>> = Object.freeze({
  [eiaSpot.def.id]: eiaSpot,
  [fred.def.id]: fred,
  [eiaPetroleum.def.id]: eiaPetroleum,
  [eiaGasStorage.def.id]: eiaGasStorage,
  [cftcCot.def.id]: cftcCot,
  [worldbank.def.id]: worldbank,
  [usgsMcs.def.id]: usgsMcs,
  [usdaWasde.def.id]: usdaWasde,
  [usdaNassCropProgress.def.id]: usdaNassCropProgress,
  [usdaFasEsr.def.id]: usdaFasEsr,
});

/** The adapter of a source id, or undefined. */
const findAdapter = (id: string): SourceAdapter | undefined => ADAPTERS[id];

export { ADAPTERS, findAdapter };
