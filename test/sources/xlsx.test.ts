import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { readSheet, SheetNotFoundError, type Cell } from '../../shared/sources/xlsx';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { buildPinkSheet } from './fundamentals-builders';

/** The grid exceljs reads (what the World Bank adapter used before xlsx.ts): the reference. */
const plainCell = (v: ExcelJS.CellValue): Cell => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('result' in v) return plainCell((v as { result?: ExcelJS.CellValue }).result ?? null);
  if ('error' in v) return String(v.error);
  return String(v);
};
const exceljsGrid = async (bytes: Uint8Array, sheet: string): Promise<Cell[][]> => {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  const rows: Cell[][] = [];
  wb.getWorksheet(sheet)!.eachRow({ includeEmpty: true }, (row, n) => {
    const cells: Cell[] = [];
    row.eachCell({ includeEmpty: true }, (cell, col) => {
      cells[col - 1] = plainCell(cell.value);
    });
    rows[n - 1] = Array.from(cells, (c) => c ?? null);
  });
  return Array.from(rows, (r) => r ?? []);
};

describe('xlsx sheet reader', () => {
  it('reads what exceljs reads: shared and rich text, numbers, formulas by result, booleans, errors, gaps', async () => {
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Other').getCell('A1').value = 'not this one';
    const ws = wb.addWorksheet('Monthly Prices');
    ws.getCell('A1').value = 'Updated on December 02, 2025';
    ws.getCell('C1').value = { richText: [{ text: 'Rice, ', font: { bold: true } }, { text: 'Thai 5% ' }] };
    ws.getCell('A3').value = '2025M11';
    ws.getCell('B3').value = 202.01642333333;
    ws.getCell('C3').value = { formula: 'B3*2', result: 404.03284666666 };
    ws.getCell('D3').value = true;
    ws.getCell('E3').value = { error: '#N/A' };
    ws.getCell('F3').value = '\u2026';
    ws.getCell('G3').value = '  spaced <&> text  ';
    ws.getCell('AB3').value = -0.5;
    ws.getCell('H4').style = { numFmt: '0.00' }; // a formatted cell without a value
    const bytes = new Uint8Array(await wb.xlsx.writeBuffer());
    const grid = readSheet(bytes, 'Monthly Prices');
    expect(grid).toEqual(await exceljsGrid(bytes, 'Monthly Prices'));
    expect(grid[2]!.slice(0, 7)).toEqual(['2025M11', 202.01642333333, 404.03284666666, 'true', '#N/A', '\u2026', '  spaced <&> text  ']);
    expect(grid[2]![27]).toBe(-0.5);
    expect(grid[0]![2]).toBe('Rice, Thai 5% ');
    expect(grid[1]).toEqual([]);
  });

  it('reads the Pink Sheet layout as exceljs does', async () => {
    const bytes = await buildPinkSheet({ months: [{ period: '2023M01', values: { WHEAT_US_SRW: '...', SILVER: null } }, { period: '2023M02' }] });
    expect(readSheet(bytes, 'Monthly Prices')).toEqual(await exceljsGrid(bytes, 'Monthly Prices'));
    const sample = new Uint8Array(readFileSync(new URL('../../shared/sources/samples/worldbank/CMO-Historical-Data-Monthly.xlsx', import.meta.url)));
    expect(readSheet(sample, 'Monthly Prices')).toEqual(await exceljsGrid(sample, 'Monthly Prices'));
  });

  it.skipIf(!HAVE_FIXTURES)('reads the recorded World Bank workbook (inline strings, five sheets) as exceljs does', async () => {
    const bytes = fixtureBytes('worldbank/CMO-Historical-Data-Monthly.sample.xlsx');
    const grid = readSheet(bytes, 'Monthly Prices');
    expect(grid).toEqual(await exceljsGrid(bytes, 'Monthly Prices'));
    expect(grid[3]![0]).toBe('Updated on December 02, 2025');
  });

  it('names the sheets a workbook has when the one asked for is missing, and refuses bytes that are not xlsx', async () => {
    const bytes = await buildPinkSheet({ months: [], sheetName: 'Monthly Indices' });
    expect(() => readSheet(bytes, 'Monthly Prices')).toThrow(SheetNotFoundError);
    expect(() => readSheet(bytes, 'Monthly Prices')).toThrow('no "Monthly Prices" sheet (sheets: Monthly Indices)');
    expect(() => readSheet(new TextEncoder().encode('<html>maintenance</html>'), 'Monthly Prices')).toThrow();
  });
});
