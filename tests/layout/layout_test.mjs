// Opens the pages of a generated course (the scenario pages and index.html) in headless
// Chromium and checks what a reader sees, at 1280 and 800 px: nothing wider than the page, no overlapping figure labels, the
// violation and protection sentences on screen, no arrow delivered to a node that is down,
// readable contrast, and a size budget. tests/layout_test.sh generates the pages and runs it.
//   node tests/layout/layout_test.mjs SITE_DIR [SCREENSHOT_DIR]
import fs from 'node:fs';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const [siteDir, screenshotDir] = process.argv.slice(2);
if (!siteDir) {
  console.error('usage: node layout_test.mjs SITE_DIR [SCREENSHOT_DIR]');
  process.exit(2);
}
const pageName = (file) => path.relative(siteDir, file);
const WIDTHS = [1280, 800];
const HEIGHT = 900;
const POOL = 2;              // the machine has two cores, shared with compilers
const DETAILS_PER_RULE = 5;  // per page: enough to see the pattern, not a wall of text
const SCREENSHOTS = ['gc-pause-40s.html', 'redlock-clock-jump.html', 'replica-failover.html'];
const BUDGET_PAGE = 'gc-pause-40s.html';
const BUDGET_BYTES = 150 * 1024;
const MAX_BYTES = 1024 * 1024;
const RULES = {
  a: 'within the page width',
  b: 'figure labels do not overlap',
  c: 'violation and protection sentences on screen',
  d: 'no arrow ends on a node that is down',
  e: 'text contrast (WCAG AA)',
  f: 'page size budget',
  g: 'page opened, screenshots taken',
};

// Runs in the page. Returns findings per rule, each {detail, key?, faded?}. Only what is
// rendered counts: Chromium gives the content of a closed <details> client rects all the same
// (it is laid out, then hidden by content-visibility), so checkVisibility decides.
function measure() {
  const W = innerWidth;
  const SLACK = 0.5;  // sub-pixel rounding of text boxes
  const found = { a: [], b: [], c: [], d: [], e: [] };
  // Per element, not per text node: the big pages have tens of thousands of text nodes.
  const cached = (f) => { const memo = new Map(); return (el) => { if (!memo.has(el)) memo.set(el, f(el)); return memo.get(el); }; };
  const visible = cached((el) => el.getClientRects().length > 0 && el.checkVisibility({ visibilityProperty: true }));
  const styleOf = cached((el) => getComputedStyle(el));
  const box = (r) => `x ${r.left.toFixed(0)}–${r.right.toFixed(0)}, y ${r.top.toFixed(0)}–${r.bottom.toFixed(0)}`;
  const quote = (s) => {
    s = s.replace(/\s+/g, ' ').trim();
    return `“${s.length > 60 ? s.slice(0, 59) + '…' : s}”`;
  };
  const describe = (el) => {
    const name = (e) => e.tagName.toLowerCase() + [...e.classList].map((c) => '.' + c).join('');
    const owner = el.parentElement?.closest('[id]');
    return name(el) + (owner ? ` in #${owner.id}` : '');
  };
  const outside = (r) => r.right > W + SLACK || r.left < -SLACK;

  if (document.documentElement.scrollWidth > W) {
    found.a.push({ detail: `the page scrolls sideways: scrollWidth ${document.documentElement.scrollWidth} > ${W}` });
  }

  // a: every rendered text box, HTML text by its text nodes (a block's box is not its text).
  const htmlText = [];
  const range = document.createRange();
  const inSvg = cached((el) => el.closest('svg, script, style') !== null);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const el = node.parentElement;
    if (!node.data.trim() || inSvg(el) || !visible(el)) continue;
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    htmlText.push({ el, text: node.data, r });
    if (outside(r)) found.a.push({ detail: `text ${quote(node.data)} at ${box(r)}` });
  }
  const svgText = [];
  for (const el of document.querySelectorAll('svg text')) {
    if (!el.textContent.trim() || !visible(el)) continue;
    const r = el.getBoundingClientRect();
    svgText.push({ el, text: el.textContent, r });
    if (outside(r)) found.a.push({ detail: `svg text ${quote(el.textContent)} at ${box(r)}` });
  }

  // b: pairs of labels in one figure that cover each other; a sweep down the figure (it is tall,
  // a few labels a row) keeps figures with thousands of labels fast.
  const TOLERANCE = 2;
  const figures = new Map();
  for (const t of svgText) {
    const figure = t.el.closest('svg.figure');
    if (!figure) continue;
    if (!figures.has(figure)) figures.set(figure, []);
    figures.get(figure).push(t);
  }
  for (const texts of figures.values()) {
    texts.sort((p, q) => p.r.top - q.r.top);
    for (let i = 0; i < texts.length; i++) {
      const p = texts[i];
      for (let j = i + 1; j < texts.length && texts[j].r.top < p.r.bottom - TOLERANCE; j++) {
        const q = texts[j];
        const dx = Math.min(p.r.right, q.r.right) - Math.max(p.r.left, q.r.left);
        const dy = Math.min(p.r.bottom, q.r.bottom) - Math.max(p.r.top, q.r.top);
        if (dx > TOLERANCE && dy > TOLERANCE) {
          found.b.push({ detail: `${quote(p.text)} at ${box(p.r)} overlaps ${quote(q.text)} at ${box(q.r)} by ${dx.toFixed(0)}×${dy.toFixed(0)} px` });
        }
      }
    }
  }

  // c: the sentences that say what went wrong and what protected it.
  for (const el of document.querySelectorAll('ul.violations li, ul.protections li, svg g.caption text')) {
    if (!visible(el)) continue;
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    if (outside(r)) {
      const kind = el.closest('ul.violations, .tone-violation') ? 'violation' : 'protection';
      found.c.push({ detail: `${kind} ${quote(el.textContent)} at ${box(r)}` });
    }
  }

  // d: an arrowhead says "delivered"; a node that is down receives nothing. Both shapes are
  // taken into the figure's own coordinates, so a transform on either side cannot hide it.
  for (const figure of document.querySelectorAll('svg.figure')) {
    const toFigure = figure.getScreenCTM()?.inverse();
    if (!toFigure) continue;  // not rendered
    const bands = [...figure.querySelectorAll('g.down rect')].map((rect) => {
      const b = rect.getBBox();
      const m = toFigure.multiply(rect.getScreenCTM());
      const p = new DOMPoint(b.x, b.y).matrixTransform(m);
      const q = new DOMPoint(b.x + b.width, b.y + b.height).matrixTransform(m);
      return { x0: Math.min(p.x, q.x), x1: Math.max(p.x, q.x), y0: Math.min(p.y, q.y), y1: Math.max(p.y, q.y),
               title: rect.parentElement.querySelector('title')?.textContent ?? 'down' };
    });
    if (bands.length === 0) continue;
    for (const line of figure.querySelectorAll('line[marker-end]')) {
      if (!/-head\)\s*$/.test(line.getAttribute('marker-end'))) continue;
      const end = new DOMPoint(line.x2.baseVal.value, line.y2.baseVal.value).matrixTransform(toFigure.multiply(line.getScreenCTM()));
      // Strictly inside: an arrow that reaches a band's edge arrived as the node went down or came back.
      const band = bands.find((b) => end.x > b.x0 + SLACK && end.x < b.x1 - SLACK && end.y > b.y0 + SLACK && end.y < b.y1 - SLACK);
      if (band) {
        const step = line.closest('g.step');
        const what = step?.querySelector('title')?.textContent ?? describe(line);
        found.d.push({ detail: `${quote(what)} ends at (${end.x.toFixed(0)}, ${end.y.toFixed(0)}), inside “${band.title}”` });
      }
    }
  }

  // e: contrast, on the colours as painted: opacity blends text toward what is behind it.
  const ctx = document.createElement('canvas').getContext('2d');
  const parse = (css) => {
    let m = /^rgba?\(([\d.]+),?\s*([\d.]+),?\s*([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\)$/.exec(css);
    if (!m) {  // named colours, color(), oklch(): let the canvas say it in rgb
      ctx.fillStyle = '#000';
      ctx.fillStyle = css;
      const s = ctx.fillStyle;
      if (s.startsWith('#')) return [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16)).concat(1);
      m = /^rgba?\(([\d.]+),?\s*([\d.]+),?\s*([\d.]+)(?:\s*[,/]\s*([\d.]+%?))?\)$/.exec(s);
      if (!m) return null;
    }
    const a = m[4] === undefined ? 1 : m[4].endsWith('%') ? parseFloat(m[4]) / 100 : parseFloat(m[4]);
    return [+m[1], +m[2], +m[3], a];
  };
  const over = (fg, alpha, bg) => [0, 1, 2].map((i) => fg[i] * alpha + bg[i] * (1 - alpha));
  const hex = (c) => '#' + c.slice(0, 3).map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  const luminance = (c) => {
    const [r, g, b] = c.map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (p, q) => { const [hi, lo] = [luminance(p), luminance(q)].sort((x, y) => y - x); return (hi + 0.05) / (lo + 0.05); };
  const WHITE = [255, 255, 255];
  const opacityOf = cached((el) => parseFloat(styleOf(el).opacity) * (el.parentElement ? opacityOf(el.parentElement) : 1));
  // The backgrounds behind an element, composited from the page's white up.
  const htmlBackground = cached((el) => {
    const behind = el.parentElement ? htmlBackground(el.parentElement) : WHITE;
    const c = parse(styleOf(el).backgroundColor);
    return c && c[3] > 0 ? over(c, c[3], behind) : behind;
  });
  // SVG text sits on white (the labels carry a white halo) unless a sibling rect is under it.
  const svgBackground = (el, r) => {
    const cx = (r.left + r.right) / 2, cy = (r.top + r.bottom) / 2;
    for (const rect of el.parentElement.querySelectorAll(':scope > rect')) {
      const b = rect.getBoundingClientRect();
      if (cx < b.left || cx > b.right || cy < b.top || cy > b.bottom) continue;
      const style = styleOf(rect);
      const c = parse(style.fill);
      if (!c) continue;  // a pattern
      return over(c, c[3] * parseFloat(style.fillOpacity) * opacityOf(rect) / (opacityOf(el.parentElement) || 1), WHITE);
    }
    return WHITE;
  };
  const checkContrast = (el, text, r, svg) => {
    const style = styleOf(el);
    const fg = parse(svg ? style.fill : style.color);
    if (!fg) return;
    const bg = svg ? svgBackground(el, r) : htmlBackground(el);
    const opacity = opacityOf(el) * (svg ? parseFloat(style.fillOpacity) : 1);
    const painted = over(fg, fg[3] * opacity, bg);
    const scale = svg ? (el.ownerSVGElement?.getScreenCTM()?.a ?? 1) : 1;
    const px = parseFloat(style.fontSize) * scale;
    const large = px >= 24 || (px >= 18.66 && parseInt(style.fontWeight, 10) >= 700);
    const need = large ? 3 : 4.5;
    const got = ratio(painted, bg);
    if (got >= need || opacity === 0) return;
    const faded = !!el.closest('.faded');
    const colours = opacity < 1
      ? `${hex(fg)} at opacity ${opacity.toFixed(2)} = ${hex(painted)} on ${hex(bg)}`
      : `${hex(painted)} on ${hex(bg)}`;
    // One line per kind of element and colours: a faded figure has hundreds alike.
    const key = `${describe(el).replace(/ in #.*/, '')} ${colours}`;
    found.e.push({ key, faded, detail: `${svg ? 'svg ' : ''}${describe(el)} ${quote(text)}: ${colours}, ${got.toFixed(2)}:1 < ${need}:1${faded ? ' (faded step)' : ''}` });
  };
  for (const t of htmlText) checkContrast(t.el, t.text, t.r, false);
  for (const t of svgText) checkContrast(t.el, t.text, t.r, true);
  return found;
}

const failures = [];  // {page, width, rule, detail, key?, faded?}
const fail = (page, width, rule, finding) => failures.push({ page, width, rule, ...finding });

const seconds = new Map();  // per page, to name the slow ones
let screenshotTurn = Promise.resolve();

async function checkPage(browser, file) {
  const name = pageName(file);
  const started = performance.now();
  const page = await browser.newPage();
  page.setDefaultTimeout(120_000);
  try {
    for (const width of WIDTHS) {
      await page.setViewport({ width, height: HEIGHT });
      if (width === WIDTHS[0]) await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
      const found = await page.evaluate(measure);
      for (const [rule, list] of Object.entries(found)) for (const f of list) fail(name, width, rule, f);
      if (width === 1280 && screenshotDir && SCREENSHOTS.includes(name)) {
        // Headless Chromium paints only the tab in front: two screenshots at once can hang.
        const turn = screenshotTurn.then(async () => {
          await page.bringToFront();
          await page.screenshot({ path: path.join(screenshotDir, name.replace(/\.html$/, '.png')), fullPage: true });
        });
        screenshotTurn = turn.catch(() => {});
        await turn;
      }
    }
  } finally {
    await page.close();
    seconds.set(name, (performance.now() - started) / 1000);
  }
}

const started = performance.now();
// The browser opens the pages a reader lands on, the scenario pages and index.html; pages in
// subfolders (a design's full figure, wide by design) only count against the size budget.
const allFiles = fs.readdirSync(siteDir, { recursive: true }).filter((f) => f.endsWith('.html')).sort()
  .map((f) => path.join(siteDir, f));
const files = allFiles.filter((f) => path.resolve(path.dirname(f)) === path.resolve(siteDir));
if (files.length === 0) {
  console.error(`layout: no HTML pages in ${siteDir}`);
  process.exit(1);
}

// f: sizes are on disk, no browser needed.
const sizes = new Map(allFiles.map((f) => [pageName(f), fs.statSync(f).size]));
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
if (!sizes.has(BUDGET_PAGE)) fail(BUDGET_PAGE, '-', 'f', { detail: 'page missing' });
else if (sizes.get(BUDGET_PAGE) > BUDGET_BYTES) {
  fail(BUDGET_PAGE, '-', 'f', { detail: `${kb(sizes.get(BUDGET_PAGE))} > its budget of ${kb(BUDGET_BYTES)}` });
}
for (const [name, size] of sizes) {
  if (size > MAX_BYTES) fail(name, '-', 'f', { detail: `${kb(size)} > ${kb(MAX_BYTES)}, the most any page may weigh` });
}
if (screenshotDir) {
  fs.mkdirSync(screenshotDir, { recursive: true });
  for (const name of SCREENSHOTS) if (!sizes.has(name)) fail(name, 1280, 'g', { detail: 'page missing: no screenshot' });
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--hide-scrollbars'],
});
try {
  const queue = [...files];
  await Promise.all(Array.from({ length: POOL }, async () => {
    for (let file; (file = queue.shift());) {
      try {
        await checkPage(browser, file);
      } catch (error) {
        fail(pageName(file), '-', 'g', { detail: `the page did not open or measure: ${error.message}` });
      }
    }
  }));
} finally {
  await browser.close();
}

// One line per failure, capped per rule and page; contrast lines of the same element kind
// and colours are told once with their count.
const byPageRule = new Map();
for (const f of failures) {
  const k = `${f.page}\t${f.rule}`;
  if (!byPageRule.has(k)) byPageRule.set(k, []);
  byPageRule.get(k).push(f);
}
for (const [, list] of [...byPageRule].sort(([p], [q]) => p.localeCompare(q))) {
  const lines = new Map();
  for (const f of list) {
    const k = f.key ? `${f.width}\t${f.key}` : `${lines.size}`;
    if (lines.has(k)) lines.get(k).count++;
    else lines.set(k, { f, count: 1 });
  }
  const shown = [...lines.values()].sort((p, q) => (p.f.faded ?? false) - (q.f.faded ?? false));
  for (const { f, count } of shown.slice(0, DETAILS_PER_RULE)) {
    console.log(`FAIL ${f.page} @${f.width}${f.width === '-' ? '' : 'px'} ${f.rule}. ${RULES[f.rule]}: ${f.detail}${count > 1 ? ` (and ${count - 1} more like it)` : ''}`);
  }
  if (shown.length > DETAILS_PER_RULE) {
    const rest = shown.slice(DETAILS_PER_RULE).reduce((n, s) => n + s.count, 0);
    console.log(`FAIL ${list[0].page} ${list[0].rule}. … and ${rest} more`);
  }
}

console.log('\nrule                                               failures  pages');
for (const [rule, title] of Object.entries(RULES)) {
  const mine = failures.filter((f) => f.rule === rule);
  const faded = mine.filter((f) => f.faded).length;
  const pages = new Set(mine.map((f) => f.page)).size;
  console.log(`${`${rule}. ${title}`.padEnd(50)} ${String(mine.length).padStart(9)}  ${String(pages).padStart(5)}${faded ? `   (${faded} on faded steps)` : ''}`);
}
const slowest = [...seconds].sort(([, p], [, q]) => q - p).slice(0, 3).map(([page, s]) => `${page} ${s.toFixed(1)} s`);
console.log(`\nChecked ${files.length} pages at ${WIDTHS.join(' and ')} px in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
  `(slowest: ${slowest.join(', ')}): ${failures.length ? `${failures.length} failures` : 'no failures'}`);
process.exit(failures.length ? 1 : 0);
