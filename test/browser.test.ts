/**
 * The IDE and the API documentation as a person uses them: headless Chromium (Debian's `chromium`,
 * which .ci/run installs when missing; CHROMIUM_PATH to name another) opens GET /graphql, pastes a
 * token, runs a query and reads its answer; opens GET /api/docs and finds an operation. Every
 * request the pages make to anywhere but this service is refused and counted: they must work
 * offline. Screenshots go to test/artifacts/ (not committed). Without Chromium the tests are
 * skipped, saying why.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { startApp, type TestApp } from './helpers/app.js';
import { member } from './helpers/factories.js';

function findChromium(): string | null {
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : null;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
    } catch {
      /* not this one */
    }
  }
  return null;
}

const chromium = findChromium();
const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const WAIT = 90_000;

if (!chromium) {
  test.skip('skipped: no Chromium on this machine (apt-get install chromium, or set CHROMIUM_PATH) — the pages are still checked over HTTP in browser-pages.test.ts', () => undefined);
  console.warn('test/browser.test.ts skipped: no Chromium found (chromium, chromium-browser, google-chrome or CHROMIUM_PATH)');
} else {
  let app: TestApp;
  let browser: Browser;
  /** Requests a page tried to send anywhere but this service. */
  const outside: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    app = await startApp();
    const { launch } = await import('puppeteer-core');
    browser = await launch({ executablePath: chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1400,900'] });
  }, WAIT);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  const open = async (path: string): Promise<{ page: Page; errors: string[] }> => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 900 });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (req.url().startsWith(app.url) || req.url().startsWith('data:') || req.url().startsWith('blob:')) return void req.continue();
      outside.push(req.url());
      void req.abort('internetdisconnected');
    });
    await page.goto(app.url + path, { waitUntil: 'load', timeout: WAIT });
    return { page, errors };
  };

  test('the GraphQL IDE: a pasted token, a query run from the IDE, its answer shown', async () => {
    const owner = await member(app);
    const { page, errors } = await open('/graphql');
    await page.waitForSelector('.graphiql-container .monaco-editor', { timeout: WAIT });
    await page.waitForSelector('[aria-label="Show GraphiQL Explorer"]', { timeout: WAIT });
    // The token field, as a person pastes the str_access_token of POST /api/login.
    await page.type('#token', owner.access);
    await page.$eval('#token', (el) => el.dispatchEvent(new Event('change')));
    // The default query holds several operations: the run button asks which one.
    await page.click('.graphiql-execute-button');
    const me = await page.waitForSelector('::-p-xpath(//li[normalize-space()="Me"] | //*[@role="menuitem" and normalize-space()="Me"])', { timeout: WAIT });
    await me!.click();
    // A string: the function runs in the page, where `document` is (this file is compiled without the DOM's types).
    await page.waitForFunction(`document.querySelector('.result-window')?.textContent?.includes(${JSON.stringify(owner.email)})`, { timeout: WAIT });
    const result = await page.$eval('.result-window', (el) => el.textContent ?? '');
    expect(result).toContain(owner.user.id);
    await page.screenshot({ path: `${ARTIFACTS}graphiql.png` });
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  }, WAIT * 3);

  test('the API documentation: an operation found, with its description', async () => {
    const { page, errors } = await open('/api/docs');
    const login = await page.waitForSelector('.opblock-summary-path[data-path="/api/login"]', { timeout: WAIT });
    await login!.click();
    await page.waitForFunction(`document.querySelector('.opblock.is-open')?.textContent?.includes('Open to anyone')`, { timeout: WAIT });
    // Every group of the document is listed (Swagger UI renders a group's operations as it is opened).
    await page.screenshot({ path: `${ARTIFACTS}api-docs.png` });
    expect(errors).toEqual([]);
    expect(outside).toEqual([]);
  }, WAIT * 3);
}
