/**
 * The HTML pages in a real headless browser (Debian's Chromium driven by playwright-core), at a
 * 390 px phone and a 1280 px desktop: each renders with no console error, fits the width without
 * horizontal scrolling (no element reaches past the right edge), every link on it answers 200, and a
 * screenshot of each is kept as a test artifact (test-artifacts/<page>-<width>.png). `.ci/run`
 * installs Chromium; without it the test says so.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { checkoutOffPage, keyPage, noSessionPage, pendingPage, shownPage } from '../../shared/families/pro/pages';
import { generateKey, keyHint } from '../../shared/pro/keys';
import { startTestStack } from '../helpers/stack';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
];
const CONTACT = 'operator@example.com';

/** How far the page reaches past the viewport's right edge, and the elements that do (none when it fits). */
const overflowOf = (page: Page) =>
  page.evaluate(() => {
    const doc = globalThis as unknown as {
      innerWidth: number;
      document: {
        documentElement: { scrollWidth: number };
        querySelectorAll(s: string): ArrayLike<{ tagName: string; getBoundingClientRect(): { right: number; width: number } }>;
      };
    };
    const width = doc.innerWidth;
    const wide = Array.from(doc.document.querySelectorAll('body *'))
      .map((el) => ({ tag: el.tagName, rect: el.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width > 1 && rect.right > width + 0.5)
      .map(({ tag, rect }) => `${tag} to ${Math.round(rect.right)} px`);
    return { scrollWidth: doc.document.documentElement.scrollWidth, width, wide: wide.slice(0, 5) };
  });

describe.skipIf(!existsSync(CHROMIUM))('pages in headless Chromium, at phone and desktop widths', () => {
  let stack: LocalStack;
  let browser: Browser;
  beforeAll(async () => {
    stack = await startTestStack({ X402_ENFORCE: undefined, OPERATOR_CONTACT: CONTACT });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    mkdirSync('test-artifacts', { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** Opens a page (a served path, or HTML the test sets), checks its fit and console, keeps a screenshot. */
  const check = async (name: string, open: (page: Page) => Promise<number | undefined>) => {
    for (const size of WIDTHS) {
      const page = await browser.newPage({ viewport: { width: size.width, height: size.height } });
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      const status = await open(page);
      const fit = await overflowOf(page);
      await page.screenshot({ path: `test-artifacts/${name}-${size.width}.png`, fullPage: true });
      expect(existsSync(`test-artifacts/${name}-${size.width}.png`)).toBe(true);
      expect({ name, width: size.width, scrollWidth: fit.scrollWidth, wide: fit.wide }).toEqual({
        name,
        width: size.width,
        scrollWidth: size.width,
        wide: [],
      });
      expect(errors, errors.join('\n')).toEqual([]);
      if (status !== undefined) expect([200, 202], name).toContain(status);
      // The links are the same at every width: followed once.
      if (size === WIDTHS[0]) {
        const hrefs: string[] = await page.$$eval('a', (as) => as.map((a) => (a as unknown as { href: string }).href));
        for (const href of new Set(hrefs.filter((h) => h.startsWith('http')))) expect((await page.request.get(href)).status(), href).toBe(200);
      }
      await page.close();
    }
  };
  const served = (path: string) => async (page: Page) => (await page.goto(`${stack.url}${path}`, { waitUntil: 'load' }))?.status();

  it('the home page', async () => {
    await check('home', served('/'));
    const page = await browser.newPage();
    await page.goto(`${stack.url}/`);
    expect(await page.title()).toBe('Commodity data service');
    expect(await page.locator('table').count()).toBe(2);
    await page.close();
  }, 120_000);

  it('the Pro plans page without Stripe: the operator contact from configuration and a link home', async () => {
    await check('pro', served('/pro'));
    const page = await browser.newPage();
    await page.goto(`${stack.url}/pro`);
    expect(await page.locator(`a[href="mailto:${CONTACT}"]`).count()).toBe(1);
    expect(await page.locator('a[href="/"]').count()).toBe(1);
    await page.close();
  }, 120_000);

  it('the Pro success pages: pending (202), the key shown once, already shown, checkout not configured, no session', async () => {
    // This deployment has no Stripe: /pro/success serves the "not configured" page; the others are rendered as served.
    for (const [name, html] of [
      ['pro-success-pending', pendingPage()],
      ['pro-success-off', checkoutOffPage(CONTACT)],
      ['pro-success-no-session', noSessionPage()],
    ] as const) {
      await check(name, async (page) => {
        await page.goto(`${stack.url}/pro`);
        await page.setContent(html, { waitUntil: 'load' });
        return undefined;
      });
    }
    const key = generateKey('live');
    await check('pro-success-key', async (page) => {
      await page.goto(`${stack.url}/pro`);
      await page.setContent(keyPage(key, keyHint(key)), { waitUntil: 'load' });
      return undefined;
    });
    await check('pro-success-shown', async (page) => {
      await page.goto(`${stack.url}/pro`);
      await page.setContent(shownPage(), { waitUntil: 'load' });
      return undefined;
    });
  }, 180_000);
});

// Registered only without Chromium, so a machine that has it reports nothing skipped.
if (!existsSync(CHROMIUM)) {
  describe('pages in headless Chromium (not run)', () => {
    it.skip(`needs Debian's Chromium at ${CHROMIUM} (.ci/run installs it: apt-get install chromium)`, () => {});
  });
}
