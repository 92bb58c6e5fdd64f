/**
 * Finance's read of the sales records (sale-record.ts): a calendar month's sales of every lane,
 * one Query per shard, oldest first. The finance report (`npm run usage`) sums them by route and lane.
 */
import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { SALE_SHARDS, saleFromItem, salePk, type SaleRecord } from './sale-record';

/**
 * Every sale of a month.
 * @param month YYYY-MM (UTC)
 */
const salesOfMonth = async (doc: DynamoDBDocumentClient, table: string, month: string): Promise<SaleRecord[]> => {
  const shards = await Promise.all(
    Array.from({ length: SALE_SHARDS }, async (_, shard) => {
      const out: SaleRecord[] = [];
      const pages = paginateQuery(
        { client: doc },
        { TableName: table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': salePk(month, shard) } },
      );
      for await (const page of pages) for (const item of page.Items ?? []) out.push(saleFromItem(item));
      return out;
    }),
  );
  return shards.flat().sort((a, b) => (a.settledAt < b.settledAt ? -1 : a.settledAt > b.settledAt ? 1 : 0));
};

export { salesOfMonth };
