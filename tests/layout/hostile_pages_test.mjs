// Opens every HTML page in PAGES_DIR (the pages locksim wrote from tests/hostile/hostile-words.json,
// whose every text field holds markup and script) in headless Chromium, and checks that each
// is what a report shared as a CI artifact must be (docs/reliability.md):
//   a. no script ran: the title is the one the file declares, and nothing logged to the console;
//   b. the scenario's text made no element: none outside the reports' own kinds, no #injected,
//      no event handler, no javascript: link, one stylesheet (the page's own), no <base>;
//   c. the page loaded nothing but itself;
//   d. the page's Content-Security-Policy stops a resource added after load (an image from
//      http://127.0.0.1:9/): the browser reports the violation and blocks the request.
// Pages in CONTROLS_DIR break one of these each and must fail it, which shows each check can fail.
//   node tests/layout/hostile_pages_test.mjs PAGES_DIR CONTROLS_DIR
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';

const [pagesDir, controlsDir] = process.argv.slice(2);
if (!pagesDir || !controlsDir) {
  console.error('usage: node hostile_pages_test.mjs PAGES_DIR CONTROLS_DIR');
  process.exit(2);
}
const htmlFiles = (dir) => fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.html')).sort()
  .map((f) => path.join(dir, f));

// The elements locksim's pages are made of; anything else came from a scenario's text.
const OWN = new Set(['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'footer', 'section', 'nav', 'article',
  'div', 'p', 'h1', 'h2', 'h3', 'a', 'span', 'strong', 'em', 'code', 'br', 'ul', 'ol', 'li', 'table', 'caption', 'tr',
  'tbody', 'th', 'td', 'details', 'summary', 'svg', 'g', 'defs', 'marker', 'pattern', 'path', 'line', 'polyline', 'polygon',
  'rect', 'circle', 'text', 'tspan', 'title']);
const PROBE = 'http://127.0.0.1:9/probe.png';

// Runs in the page: what the scenario's text may have made of it.
function inspect(own) {
  const found = [];
  const strangers = new Set();
  for (const el of document.querySelectorAll('*')) {
    const name = el.tagName.toLowerCase();
    if (!own.includes(name)) strangers.add(name);
    for (const attribute of el.attributes) {
      if (attribute.name.startsWith('on')) found.push(`an event handler ${attribute.name} on <${name}>`);
      if (/^\s*javascript:/i.test(attribute.value)) found.push(`a javascript: ${attribute.name} on <${name}>`);
    }
  }
  if (strangers.size) found.push(`elements locksim does not write: ${[...strangers].map((s) => `<${s}>`).join(' ')}`);
  if (document.getElementById('injected')) found.push('an element with id "injected"');
  if (document.querySelectorAll('style').length !== 1) found.push(`${document.querySelectorAll('style').length} <style> elements, expected the page's own`);
  if (document.querySelector('base')) found.push('a <base> element');
  return found;
}

// Runs in the page: adds an image from elsewhere; the policy must refuse it.
function probe(url) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('no violation reported within 3 s'), 3000);
    document.addEventListener('securitypolicyviolation', (event) => {
      clearTimeout(timer);
      resolve(event.blockedURI === url ? '' : `a violation for ${event.blockedURI}, not the probe`);
    }, { once: true });
    const image = document.createElement('img');
    image.src = url;
    document.body.append(image);
  });
}

// The <title> the file declares, as the browser reads it.
function declaredTitle(file) {
  const m = fs.readFileSync(file, 'utf8').match(/<title>([^<]*)<\/title>/);
  if (!m) return null;
  return m[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

// The problems of one page, by check letter.
async function check(browser, file) {
  const problems = [];
  const page = await browser.newPage();
  page.setDefaultTimeout(120_000);
  const own = pathToFileURL(path.resolve(file)).href;
  // Every request the page made but its own, from the browser's network log; one the policy
  // blocked is logged too, then fails as blocked ("csp"): it never left the browser.
  const network = await page.createCDPSession();
  await network.send('Network.enable');
  const sent = new Map();  // request id → URL
  network.on('Network.requestWillBeSent', (event) => { if (event.request.url !== own) sent.set(event.requestId, event.request.url); });
  network.on('Network.loadingFailed', (event) => { if (event.blockedReason === 'csp') sent.delete(event.requestId); });
  const requested = () => [...sent.values()];
  const console_ = [];
  page.on('console', (message) => console_.push(message.text()));
  page.on('pageerror', (error) => console_.push(error.message));
  try {
    await page.goto(own, { waitUntil: 'load' });
    const title = await page.title();
    const declared = declaredTitle(file);
    if (title !== declared) problems.push(`a. the title is "${title}", the file declares "${declared}"`);
    if (console_.length) problems.push(`a. the console: ${console_.slice(0, 3).join(' | ')}`);
    for (const finding of await page.evaluate(inspect, [...OWN])) problems.push(`b. ${finding}`);
    if (requested().length) problems.push(`c. it loaded ${requested().slice(0, 3).join(', ')}`);
    const refused = await page.evaluate(probe, PROBE);
    if (refused) problems.push(`d. the probe image: ${refused}`);
    await new Promise((resolve) => setTimeout(resolve, 200));  // a request the probe set off
    if (requested().includes(PROBE)) problems.push('d. the probe image was requested, not blocked');
  } finally {
    await page.close();
  }
  return problems;
}

const pages = htmlFiles(pagesDir);
const controls = htmlFiles(controlsDir);
if (pages.length === 0 || controls.length === 0) {
  console.error(`hostile pages: no HTML pages in ${pages.length ? controlsDir : pagesDir}`);
  process.exit(1);
}
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
// The problems of each file, in the files' order, four pages open at a time: most of a check
// is waiting (for the page's load, the policy's report, the probe's 200 ms; a control with no
// policy waits the whole 3 s), so pages checked side by side cost little more than one.
async function checkAll(browser, files) {
  const problems = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const at = next++;
      problems[at] = await check(browser, files[at]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, files.length) }, worker));
  return problems;
}

let failed = 0;
try {
  const found = await checkAll(browser, pages);
  pages.forEach((file, at) => {
    const name = path.relative(pagesDir, file);
    if (found[at].length) {
      failed++;
      console.log(`FAIL ${name}:\n  ${found[at].join('\n  ')}`);
    } else {
      console.log(`PASS ${name}: no script ran, no element from its text, nothing loaded, the policy holds`);
    }
  });
  // A control's name says which check it must fail: "b-injected-element.html" fails b.
  const controlled = await checkAll(browser, controls);
  controls.forEach((file, at) => {
    const name = path.basename(file);
    const problems = controlled[at];
    if (problems.some((p) => p.startsWith(name[0] + '.'))) {
      console.log(`PASS control ${name} fails check ${name[0]}: ${problems.find((p) => p.startsWith(name[0] + '.'))}`);
    } else {
      failed++;
      console.log(`FAIL control ${name}: check ${name[0]} missed it (${problems.join('; ') || 'no problem found'})`);
    }
  });
} finally {
  await browser.close();
}
console.log(`${pages.length} pages, ${controls.length} controls, ${failed} failed`);
process.exit(failed ? 1 : 0);
