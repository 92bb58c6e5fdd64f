/**
 * The "Methods of derived figures" part of llms-full.txt, generated from the `methods` each
 * route carries in the route table, so the documents state exactly what the responses state
 * (DESIGN.md "Derived figures"). Routes that share one method (the three spreads) share a section.
 */
import { ROUTES, type RouteDef } from '../routes';

/** Pure: the methods reference, one section per distinct method. */
const buildMethodsText = (): string => {
  const groups = new Map<Readonly<Record<string, string>>, RouteDef[]>();
  for (const r of ROUTES) if (r.methods) groups.set(r.methods, [...(groups.get(r.methods) ?? []), r]);
  return [
    '## Methods of derived figures',
    '',
    ...[...groups].flatMap(([methods, routes]) => [
      `### ${routes.map((r) => r.summary).join('; ')} (${routes.map((r) => r.path).join(', ')})`,
      ...Object.entries(methods).map(([k, v]) => `- ${k}: ${v}`),
      '',
    ]),
  ].join('\n');
};

export { buildMethodsText };
