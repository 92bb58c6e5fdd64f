/**
 * DynamoDB's size of an item, by the rules of its developer guide ("Item sizes and formats"): per
 * attribute, the UTF-8 length of its name plus its value: a string its UTF-8 length, a number
 * (length of its significant digits + 1) / 2 + 1 bytes, binary its length, a boolean or null 1
 * byte, a list or map 3 bytes plus its elements (a map's keys counted like names, each element 1
 * byte more). Writes are billed per started KB of the larger of the item before and after.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

const numberSize = (n: string): number => {
  const digits = n.replace(/^-/, '').replace(/e.*$/i, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil((Math.max(digits.length, 1) + 1) / 2) + 1;
};

const valueSize = (v: AttributeValue): number => {
  if (v.S !== undefined) return utf8(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.SS) return v.SS.reduce((n, s) => n + utf8(s), 0);
  if (v.NS) return v.NS.reduce((n, s) => n + numberSize(s), 0);
  if (v.BS) return v.BS.reduce((n, b) => n + b.length, 0);
  if (v.L) return 3 + v.L.reduce((n, x) => n + 1 + valueSize(x), 0);
  if (v.M) return 3 + Object.entries(v.M).reduce((n, [k, x]) => n + 1 + utf8(k) + valueSize(x), 0);
  return 0;
};

/** Bytes of an item (attribute names included). */
const itemSize = (item: Record<string, AttributeValue>): number => Object.entries(item).reduce((n, [k, v]) => n + utf8(k) + valueSize(v), 0);

/** Bytes of the copy of an item an index holds: the table's keys, the index's keys and the projected attributes. */
const projectedSize = (item: Record<string, AttributeValue>, keep: readonly string[]): number =>
  itemSize(Object.fromEntries(Object.entries(item).filter(([k]) => keep.includes(k))));

/** Write units of one standard write of `bytes` (a transactional write costs twice). */
const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

export { itemSize, projectedSize, writeUnits };
