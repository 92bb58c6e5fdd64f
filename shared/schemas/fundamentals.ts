/** Bodies of the fundamentals family: WASDE balance sheets, crop progress, export sales, USGS summaries. */
import * as z from '../zod';
import { HeadlineLine } from './headline';
import { IsoDateSchema, IsoDateTimeSchema, MaybeObservation, MethodTexts, missingOf, ServedObservation } from './common';

/** One statistic with its comparisons (previous report, year ago, 5-year average). */
const ComparedLine = z
  .strictObject({
    statistic: z.string(),
    label: z.string(),
    latest: ServedObservation,
    previous_report: MaybeObservation,
    change_vs_previous_report: MaybeObservation,
    year_ago: MaybeObservation,
    change_vs_year_ago: MaybeObservation,
    five_year_average: MaybeObservation,
    change_vs_five_year_average: MaybeObservation,
    notes: z.array(z.string()),
  })
  .register(z.globalRegistry, { id: 'ComparedLine', description: 'One statistic with its previous report, year-ago and 5-year-average comparisons.' });

const Label = z.nullable(z.union([z.string(), z.number()]));

const envelope = <T extends z.ZodMiniType>(commodity: T) =>
  z.strictObject({
    report: z.string(),
    source: z.string(),
    method: MethodTexts,
    commodities: z.array(commodity),
    missing: z.array(missingOf('commodity')),
  });

const WasdeReport = z.strictObject({ report_month: Label, as_of: IsoDateSchema, published_at: z.nullable(IsoDateTimeSchema), wasde_number: Label });

const WasdeBody = envelope(
  z.strictObject({
    commodity: z.string(),
    region: z.string(),
    unit: z.string(),
    projection_year: z.string(),
    report: WasdeReport,
    previous_report: z.nullable(WasdeReport),
    market_years: z.array(z.strictObject({ market_year: z.string(), status: Label, lines: z.array(ComparedLine) })),
    market_years_missing: z.array(z.string()),
  }),
).register(z.globalRegistry, { id: 'Wasde', description: 'WASDE-shaped US balance sheets.' });

const CropProgressBody = z
  .extend(
    envelope(
      z.strictObject({
        commodity: z.string(),
        week_ending: IsoDateSchema,
        published_at: z.nullable(IsoDateTimeSchema),
        statistics: z.array(ComparedLine),
        not_in_latest_report: z.array(z.strictObject({ statistic: z.string(), last_week_ending: z.nullable(IsoDateSchema) })),
      }),
    ),
    { unit: z.string() },
  )
  .register(z.globalRegistry, { id: 'CropProgress', description: 'Weekly crop progress by stage.' });

const ExportSalesBody = envelope(
  z.strictObject({
    commodity: z.string(),
    week_ending: IsoDateSchema,
    market_year: Label,
    published_at: z.nullable(IsoDateTimeSchema),
    scope: Label,
    unit: z.string(),
    lines: z.array(ComparedLine),
  }),
).register(z.globalRegistry, { id: 'ExportSales', description: 'Weekly export sales.' });

const UsgsBody = envelope(
  z.strictObject({
    commodity: z.string(),
    edition: Label,
    published_at: z.nullable(IsoDateTimeSchema),
    statistics: z.array(ComparedLine),
    /** Statistics USGS prints no number for (W, NA, E, or a figure it says cannot be calculated), with what it printed. */
    statistics_without_data: z.array(
      z.strictObject({
        statistic: z.string(),
        label: z.string(),
        reason: z.string(),
        as_of: z.nullable(IsoDateSchema),
        published_value: z.nullable(z.string()),
        unit: z.nullable(z.string()),
      }),
    ),
  }),
).register(z.globalRegistry, { id: 'Usgs', description: 'USGS Mineral Commodity Summaries figures.' });

/**
 * The compact (default) view of a fundamentals route: one headline line per statistic (WASDE: the
 * projection year's production, use, exports, ending stocks and stocks-to-use).
 */
const FundamentalsCompactBody = z
  .strictObject({
    report: z.string(),
    source: z.string(),
    view: z.literal('compact'),
    full_view: z.string(),
    lines: z.array(HeadlineLine),
    stale_rule: z.string(),
    missing: z.array(missingOf('commodity')),
  })
  .register(z.globalRegistry, { id: 'FundamentalsCompact', description: 'Headline lines of a fundamentals report (view=full has every line and comparison).' });

const viewOf = <T extends z.ZodMiniObject>(full: T, id: string) =>
  z.discriminatedUnion('view', [FundamentalsCompactBody, z.extend(full, { view: z.literal('full') }).register(z.globalRegistry, { id: `${id}Full` })]);

const WasdeView = viewOf(WasdeBody, 'Wasde');
const CropProgressView = viewOf(CropProgressBody, 'CropProgress');
const ExportSalesView = viewOf(ExportSalesBody, 'ExportSales');
const UsgsView = viewOf(UsgsBody, 'Usgs');

export { WasdeBody, CropProgressBody, ExportSalesBody, UsgsBody, WasdeView, CropProgressView, ExportSalesView, UsgsView };
