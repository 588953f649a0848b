// The driver the one-page layout tests share (vulnerability_map_test.mjs,
// study_chart_test.mjs): opens PAGE in headless Chromium, runs `measure` in it at 1280 and
// then 800 px, prints each failure and a count per width, takes a screenshot of the
// element `shot.selector` at `shot.width` into `shot.path` when one is given, and exits 1
// if any width failed. `measure` returns {failures, count}: sentences, and how many
// `noun` it checked.
import path from 'node:path';
import puppeteer from 'puppeteer-core';

export async function checkAtWidths(pageFile, measure, noun, shot) {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars'],
  });
  let failed = 0;
  try {
    const page = await browser.newPage();
    for (const width of [1280, 800]) {
      await page.setViewport({ width, height: 900 });
      if (width === 1280) await page.goto('file://' + path.resolve(pageFile), { waitUntil: 'load' });
      const { failures, count } = await page.evaluate(measure);
      for (const f of failures) console.log(`FAIL @${width}px ${f}`);
      console.log(`${count} ${noun} at ${width} px: ${failures.length ? `${failures.length} failures` : 'no failures'}`);
      failed += failures.length;
      if (shot.path && width === shot.width) {
        const part = await page.$(shot.selector);
        await part.screenshot({ path: shot.path });
      }
    }
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
}
