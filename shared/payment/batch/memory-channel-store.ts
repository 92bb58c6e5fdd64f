/**
 * The batch channel store in one process's memory, for unit tests and single-process tools. Every
 * change runs its read, callback and write without yielding, so it is atomic inside the process
 * (and only there: Lambdas need DynamoChannelStore).
 */
import type { ChannelUpdateResult } from '@x402/evm/batch-settlement/server';
import {
  type BatchChannelStore,
  type ChannelChange,
  type DeliveredAnswer,
  normalizeChannelId,
  type OpenSale,
  openSaleOf,
  type StoredChannel,
} from './channel-store';
import { saleKey, type SaleRecord } from '../sales';

const openKey = (o: Pick<OpenSale, 'channelId' | 'cumulative'>) => `${o.channelId}#${o.cumulative}`;
/** The key order of openSales(): channel, then cumulative (padded to uint128's 39 digits). */
const pageKey = (o: Pick<OpenSale, 'channelId' | 'cumulative'>) => `${o.channelId}#${o.cumulative.toString().padStart(39, '0')}`;

class MemoryChannelStore implements BatchChannelStore {
  private readonly channels = new Map<string, StoredChannel>();
  private readonly saleItems = new Map<string, SaleRecord>();
  private readonly open = new Map<string, OpenSale>();
  private readonly answers = new Map<string, DeliveredAnswer>();
  private cursor: bigint | undefined;
  private pass: string | undefined;

  async get(channelId: string): Promise<StoredChannel | undefined> {
    const c = this.channels.get(normalizeChannelId(channelId));
    return c ? structuredClone(c) : undefined;
  }

  async list(): Promise<StoredChannel[]> {
    return [...this.channels.values()].map((c) => structuredClone(c));
  }

  async updateChannel(channelId: string, update: (current: StoredChannel | undefined) => StoredChannel | undefined): Promise<ChannelUpdateResult> {
    return this.change(channelId, (current) => ({ channel: update(current) }));
  }

  /** The seed is not needed here: a read costs nothing. */
  async change(channelId: string, update: (current: StoredChannel | undefined) => ChannelChange, _seed?: StoredChannel): Promise<ChannelUpdateResult> {
    const id = normalizeChannelId(channelId);
    // Let concurrent callers interleave here, as they would around a remote store.
    await Promise.resolve();
    const current = this.channels.has(id) ? structuredClone(this.channels.get(id)!) : undefined;
    const { channel, sales = [], answer } = update(current);
    if (channel === current) return { channel: current, status: 'unchanged' };
    if (!channel) {
      if (!current) return { channel: undefined, status: 'unchanged' };
      this.channels.delete(id);
      return { channel: undefined, status: 'deleted' };
    }
    this.channels.set(id, structuredClone(channel));
    for (const sale of sales) {
      const key = saleKey(sale);
      this.saleItems.set(`${key.pk}#${key.sk}`, { ...sale });
      const o = openSaleOf(sale, key);
      this.open.set(openKey(o), o);
    }
    if (answer) this.answers.set(id, structuredClone(answer));
    return { channel: structuredClone(channel), status: 'updated' };
  }

  async answerOf(channelId: string): Promise<DeliveredAnswer | undefined> {
    const a = this.answers.get(normalizeChannelId(channelId));
    return a ? structuredClone(a) : undefined;
  }

  async openSales(): Promise<OpenSale[]> {
    return [...this.open.values()].sort((a, b) => (a.channelId === b.channelId ? Number(a.cumulative - b.cumulative) : a.channelId < b.channelId ? -1 : 1));
  }

  async openSalesPage(after: string | undefined, limit: number): Promise<{ sales: OpenSale[]; next?: string }> {
    const rest = (await this.openSales()).filter((o) => after === undefined || pageKey(o) > after);
    const sales = rest.slice(0, limit);
    return rest.length > limit ? { sales, next: pageKey(sales.at(-1)!) } : { sales };
  }

  async openSalesOf(channelId: string, range: { above: bigint; upTo: bigint }, limit: number): Promise<OpenSale[]> {
    const id = normalizeChannelId(channelId);
    return (await this.openSales()).filter((o) => o.channelId === id && o.cumulative > range.above && o.cumulative <= range.upTo).slice(0, limit);
  }

  async closeSales(sales: readonly OpenSale[], transaction: string): Promise<void> {
    for (const o of sales) {
      if (!this.open.delete(openKey(o))) continue;
      const k = `${o.sale.pk}#${o.sale.sk}`;
      const sale = this.saleItems.get(k);
      if (sale && sale.transaction === '') this.saleItems.set(k, { ...sale, transaction });
    }
  }

  async jobCursor(): Promise<bigint | undefined> {
    return this.cursor;
  }

  async setJobCursor(block: bigint): Promise<void> {
    this.cursor = block;
  }

  async passState(): Promise<string | undefined> {
    return this.pass;
  }

  async setPassState(state: string | undefined): Promise<void> {
    this.pass = state;
  }

  /** Every sale booked (tests compare them with the chain). */
  sales(): SaleRecord[] {
    return [...this.saleItems.values()];
  }
}

export { MemoryChannelStore };
