/**
 * `npm run usage -- --day …` / `--from … --to …`: reads the sales and Pro usage of the months the
 * range touches and prints infra/local/earnings.ts's report (keys-cli.ts's `usage` hands over here).
 */
import type { SaleRecord } from '../../shared/payment/sales';
import type { UsageEntry } from '../../shared/pro/credit-port';
import { dayRange, earnings, earningsLines, monthsOf } from './earnings';

interface Sources {
  salesOfMonth(month: string): Promise<SaleRecord[]>;
}
interface KeyUsage {
  list(): Promise<Array<{ hash: string }>>;
  usage(hash: string, month: string): Promise<UsageEntry[]>;
}

/**
 * Prints the earnings of the flags' range.
 * @throws Error with a message for the operator on bad flags
 */
const printEarnings = async (flags: { day?: string; from?: string; to?: string; csv?: boolean }, keys: KeyUsage, finance: Sources): Promise<void> => {
  const range = dayRange(flags);
  const months = monthsOf(range);
  const sales = (await Promise.all(months.map((m) => finance.salesOfMonth(m)))).flat();
  const usage: UsageEntry[] = [];
  const all = await keys.list();
  for (const m of months) for (const k of all) usage.push(...(await keys.usage(k.hash, m)));
  for (const line of earningsLines(earnings(sales, usage, range), range, flags.csv)) console.log(line);
};

export { printEarnings };
