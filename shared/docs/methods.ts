/**
 * The methods of every derived figure, collected from the modules that compute them, so
 * llms-full.txt states exactly what the responses state (DESIGN.md "Derived figures").
 */
import { COT_METHOD } from '../analytics/cot';
import { RULESET, DIGEST_METHOD } from '../analytics/decision';
import { AGGREGATION } from '../analytics/history';
import { INVENTORY_METHOD } from '../analytics/inventory';
import { SPREADS } from '../analytics/spreads';
import { CROP_METHOD, ESR_METHOD, USGS_METHOD, WASDE_METHOD } from '../families/fundamentals/load';

const section = (title: string, method: Readonly<Record<string, string>>): string[] => [
  `### ${title}`,
  ...Object.entries(method).map(([k, v]) => `- ${k}: ${v}`),
  '',
];

/** Pure: the "Methods" part of llms-full.txt. */
const buildMethodsText = (): string =>
  [
    '## Methods of derived figures',
    '',
    ...section('History resampling (/v1/history)', AGGREGATION),
    ...section('Inventories (/v1/inventory/eia)', INVENTORY_METHOD),
    ...section('Managed-money positioning (/v1/cot)', COT_METHOD),
    '### Spreads (/v1/spreads)',
    ...Object.values(SPREADS).map((s) => `- ${s.id}: ${s.formula} (${s.unit}). ${s.description}`),
    '- quality is the weakest of the legs and freshness the slowest; legs are aligned on the latest date they all share.',
    '',
    ...section('WASDE balance sheets (/v1/fundamentals/wasde)', WASDE_METHOD),
    ...section('Crop progress (/v1/fundamentals/crop-progress)', CROP_METHOD),
    ...section('Export sales (/v1/fundamentals/export-sales)', ESR_METHOD),
    ...section('Mineral summaries (/v1/fundamentals/usgs)', USGS_METHOD),
    `### Decision packs (/v1/decision), ${RULESET.version}`,
    ...RULESET.rules.map((r) => `- ${r.id} (${r.applies_to}): ${r.method}; ${r.fires}`),
    `- combination: ${RULESET.combination}`,
    `- digest: ${DIGEST_METHOD}`,
    '',
  ].join('\n');

export { buildMethodsText };
