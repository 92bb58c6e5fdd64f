/**
 * The "Methods of derived figures" part of llms-full.txt, generated from the `methods` each
 * route carries in the route table, so the documents state exactly what the responses state
 * (DESIGN.md "Derived figures"). Routes that share one method (the three spreads) share a section.
 */
import { LEG_RULES } from '../analytics/spreads';
import { PUBLISHER_RULES } from '../calendar/rules';
import { ROUTES, type RouteDef } from '../routes';
import { SOURCES } from '../sources/registry';

/**
 * Pure: what observed_at and published_at mean for each source, from the registry's rules and
 * the publisher calendars; says where observed_at is null and why.
 */
const buildTimesText = (): string[] => [
  '## observed_at and published_at',
  '',
  "- observed_at: the moment the value describes. A time the publisher states (noon buying rates, the WPSR week ending 07:00 Friday); otherwise the end of the as_of day in the market time zone, labelled as a convention; the end of the reference week, month or year of weekly, monthly and annual figures. attributes.observed_at_basis says which. Derived figures take the latest observed_at of their inputs (a change takes its week's), null when no input has one.",
  "- published_at: when the publisher released the figure, from the publisher's own release calendar with its holiday rule (US federal holidays as observed) and announced exceptions. attributes.published_at_estimated is true when the date lies outside the schedule verified against the publisher's dated calendar (the rule still applies; a one-off closure would not be in it). Where a recorded copy of the publication states its release (EIA's spot workbooks, the Pink Sheet's \"Updated on\", the USGS data release) that statement is used; a release whose time is not stated is dated by the end of its day (ET). EIA spot prices follow each series' lag (a Wednesday release carries Henry Hub through Tuesday, crude and products through Monday); each Pink Sheet month is dated by its own first release. A live run records when this service first saw a figure: at a past instant a figure is never served before the later of its release and that.",
  "- next_release_at and /v1/calendar come from the same calendars: next_release_at is the publisher's next release after the moment of the answer (computed when answering, never frozen at ingestion); no release falls on a weekend or a US federal holiday. /v1/calendar marks estimated dates and names the holiday that moved a release (shifted_by).",
  '- provenance.retrieval: live when an ingestion run fetched the figure from the publisher, replay when it came from the recorded publications bundled with the service (demo data); a figure computed from several says replay when any input was replayed.',
  '',
  ...SOURCES.flatMap((s) => {
    const rule = PUBLISHER_RULES[s.schedule.calendar];
    const byInstrument = Object.entries(s.observedAtByInstrument ?? {}).map(([code, r]) => `${code}: ${r.basis}`);
    return [
      `### ${s.id} (${s.name})`,
      `- observed_at: ${s.observedAt.basis}${byInstrument.length ? `; by instrument: ${byInstrument.join('; ')}` : ''}`,
      `- published_at / next release: ${rule}`,
      '',
    ];
  }),
];

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
    '### Multi-leg figures (crack, crush, basis, calendar spread; the spreads of snapshots and decision packs)',
    ...Object.entries(LEG_RULES).map(([k, v]) => `- ${k}: ${v}`),
    '',
    ...buildTimesText(),
  ].join('\n');
};

export { buildMethodsText };
