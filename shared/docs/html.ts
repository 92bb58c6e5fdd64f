/**
 * The HTML shell of the pages people read (home, Pro plans, the one-time key page): one stylesheet
 * that fits a 390 px phone without horizontal scrolling. Long words (paths, keys) wrap, and tables
 * marked `cards` become one block per row on narrow screens, each cell named by its column.
 */

/** Escapes text for HTML content and attribute values. */
const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = [
  '*{box-sizing:border-box}',
  'body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;overflow-wrap:anywhere}',
  'table{border-collapse:collapse;width:100%}',
  'th,td{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}',
  'code{background:#f3f3f3;padding:0 .2rem;overflow-wrap:anywhere}',
  '.stale{color:#a40000;font-weight:600}',
  '.notice{border-left:4px solid #c60;background:#fff6e5;padding:.5rem 1rem;margin:1rem 0}',
  '.plan{border:1px solid #ccc;border-radius:.5rem;padding:1rem;margin:1rem 0}',
  // On a phone each row is a card and each cell names its column (read aloud too), so the headings go.
  '@media (max-width:40rem){table.cards thead{display:none}' +
    'table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}' +
    'table.cards tr{border-bottom:1px solid #ddd;padding:.5rem 0}table.cards td{border:0;padding:0}' +
    'table.cards td[data-label]::before{content:attr(data-label) ": ";font-weight:600}}',
].join('');

/**
 * Pure: a whole page.
 * @param title the document title (escaped here)
 * @param body trusted HTML (its parts are escaped by whoever built them)
 */
const htmlPage = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,">` +
  `<title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;

/**
 * Pure: a table that reads as cards on a phone.
 * @param columns the column headings (escaped here)
 * @param rows each row's cells, as trusted HTML, in column order
 */
const cardTable = (columns: readonly string[], rows: ReadonlyArray<readonly string[]>): string =>
  `<table class="cards"><thead><tr>${columns.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr></thead><tbody>` +
  rows.map((cells) => `<tr>${cells.map((cell, i) => `<td data-label="${esc(columns[i] ?? '')}">${cell}</td>`).join('')}</tr>`).join('') +
  '</tbody></table>';

export { esc, htmlPage, cardTable };
