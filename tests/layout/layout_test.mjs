// Opens the pages of a generated course (the scenario pages and index.html) in headless
// Chromium and checks what a reader sees, at 1280 and 800 px: nothing wider than the page, no overlapping figure labels, the
// violation and protection sentences on screen, no arrow delivered to a node that is down,
// readable contrast, a size budget, no green ✓ from one run of many on a lesson about a rate
// (m), each page once in the index (n), the red mark on the write its sentence blames (o),
// every message a violation's sentence names drawn in its story (p), a lane's name inside its
// box (q).
// The pages of every step have rules of their own:
// the page never scrolls sideways (the figure scrolls in its frame, its lane names on top),
// labels clear of arrows, of each other and of the time column, the checker's sentences
// whole, and a number and time on every step (on a named sample of them, STEP_SAMPLE).
// tests/layout_test.sh generates the pages and runs it.
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
// Lessons about how often, whose faults are drawn at random: each page must lead with rates.
const RATE_LESSONS = ['random-gc-pauses.html', 'random-network-faults.html', 'clock-chaos.html',
  'monthly-statements-rate.html'];
const RULES = {
  a: 'within the page width',
  b: 'figure labels do not overlap',
  c: 'violation and protection sentences on screen',
  d: 'no arrow ends on a node that is down',
  e: 'text contrast (WCAG AA)',
  f: 'page size budget',
  g: 'page opened, screenshots taken',
  m: 'no green mark from one run of many (a lesson that is a rate)',
  n: 'the index lists each page once',
  o: 'the red mark sits on the write its sentence blames',
  p: 'every message a sentence names is drawn in its story',
  q: 'a lane name stays inside its box',
};

// Runs in the page. Returns findings per rule, each {detail, key?, faded?}. Only what is
// rendered counts: Chromium gives the content of a closed <details> client rects all the same
// (it is laid out, then hidden by content-visibility), so checkVisibility decides.
function measure(oneOfMany) {
  const W = innerWidth;
  const SLACK = 0.5;  // sub-pixel rounding of text boxes
  const found = { a: [], b: [], c: [], d: [], e: [], m: [], n: [], o: [], p: [], q: [] };
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

  // m: a page whose faults are drawn at random names its run as one of many; a green ✓ there
  // must count the runs of its sweep ("nothing lost in 2000 runs"), never the one run drawn.
  if (oneOfMany || document.querySelector('header')?.textContent.includes('one run of many')) {
    if (!document.querySelector('section.rates')) found.m.push({ detail: 'one run of many, and no rates' });
    for (const el of document.querySelectorAll('.outcome-safe')) {
      if (!/ in \d+ runs?$/.test(el.textContent.trim())) found.m.push({ detail: `${describe(el)} ${quote(el.textContent)}` });
    }
  }
  // m, too: none lost in N runs is not none at all; the rate those runs cannot rule out follows it.
  for (const el of document.querySelectorAll('.outcome-safe')) {
    if (/ in \d+ runs?$/.test(el.textContent.trim()) && !el.nextElementSibling?.classList.contains('not-ruled-out')) {
      found.m.push({ detail: `${describe(el)} ${quote(el.textContent)} without the rate it does not rule out` });
    }
  }
  // n: on the course index, every page once.
  if (document.querySelector('ol.course')) {
    const seen = new Map();
    for (const a of document.querySelectorAll('ol.course a')) seen.set(a.getAttribute('href'), (seen.get(a.getAttribute('href')) ?? 0) + 1);
    for (const [href, count] of seen) if (count > 1) found.n.push({ detail: `${href} listed ${count} times` });
  }
  // o: where a violation's sentence names the write it blames ("(charge 8)"), the red mark is
  // on that write: the marked step's own words name it.
  for (const step of document.querySelectorAll('g.step.violation')) {
    const caption = step.querySelector('g.caption')?.textContent ?? '';
    const words = [...step.querySelectorAll(':scope > a > text.words, :scope > text.words')].map((t) => t.textContent).join(' ');
    const blamed = [...caption.matchAll(/\(([^()]+ \d+)\)/g)].map((m) => m[1]).filter((w) => /^[a-z][a-z -]* \d+$/.test(w));
    if (blamed.length > 0 && !blamed.some((w) => words.includes(`(${w})`) || words.includes(`(${w},`))) {
      found.o.push({ detail: `${step.id}: marks ${quote(words)}, but its sentence blames ${blamed.map((w) => `(${w})`).join(', ')}` });
    }
  }
  // p: the messages a violation's sentence names (renewals a partition lost, a message held in
  // flight) are listed in its data-cites, and each is a message of the story on screen.
  for (const step of document.querySelectorAll('g.step.violation')) {
    if (!visible(step)) continue;
    const caption = [...step.querySelectorAll('g.caption text')].map((t) => t.textContent).join(' ');
    const cites = (step.getAttribute('data-cites') ?? '').split(' ').filter(Boolean);
    if (/ were lost| was held in flight/.test(caption) && cites.length === 0) {
      found.p.push({ detail: `${step.id}: ${quote(caption)} names messages, and none is cited` });
    }
    const story = step.id.replace(/-e\d+$/, '');
    for (const cited of cites) {
      const drawn = document.getElementById(`${story}-${cited}`);
      if (!drawn || !visible(drawn) || !drawn.classList.contains('message')) {
        found.p.push({ detail: `${step.id}: its sentence names ${cited}, which the story does not draw as a message` });
      }
    }
  }
  // q: a lane's name stays inside its coloured box (ten lanes leave each about 44 px).
  for (const lane of document.querySelectorAll('svg.story-lanes g.lane')) {
    const rect = lane.querySelector('rect');
    if (!rect || !visible(rect)) continue;
    const b = rect.getBoundingClientRect();
    for (const t of lane.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.left < b.left - SLACK || r.right > b.right + SLACK) {
        found.q.push({ detail: `${lane.dataset.node}: ${quote(t.textContent)} spans x ${r.left.toFixed(1)}–${r.right.toFixed(1)}, its box x ${b.left.toFixed(1)}–${b.right.toFixed(1)}` });
      }
    }
  }
  return found;
}

// The pages of every step (a design's full figure and its table, in <scenario>-steps/): the
// figure is wider than a screen and scrolls in a frame of its own, so they have rules of their
// own, h to l, in the functions below.
Object.assign(RULES, {
  h: 'every step: no sideways page scroll',
  i: 'every step: labels off arrows, times, labels',
  j: "every step: the checker's sentences whole",
  k: 'every step: lane names on top when scrolled',
  l: 'every step: each step has its number and time',
});
const STEP_SCREENSHOT = 'gc-pause-40s-steps/d1-unfenced.html';
// All 146 pages of every step take the browser about three minutes, four times what the rest
// of this test takes; by default it opens these, which cover what went wrong on them
// (LAYOUT_EVERY_STEP_PAGE=1 in the environment opens every one).
const STEP_SAMPLE = [
  STEP_SCREENSHOT,                                         // refused retries e16–e23, a 40 s pause, the cut sentence
  'partition-steps/d1-unfenced.html',                      // 1,755 px wide before
  'network-delay-spike-steps/d3-idempotent.html',          // 1,983 px before; messages in flight at the end
  'redlock-clock-jump-steps/d2-idempotent.html',           // the widest before, 2,433 px
  'redlock-pause-steps/d1-unfenced.html',                  // ten lanes: the widest figure now
  'stores-compared-steps/d7-redlock-majority-restart.html', // ten lanes, stores restarting
  'herd-effect-steps/d1-watch-predecessor.html',           // ten lanes of clients and ZooKeeper
  'replica-promotion-steps/d1-most-up-to-date.html',       // a node down while messages cross its lane
  'monthly-statements-steps/d3-counter-token-at-provider.html',  // 1,000 steps cut short: the largest page
];

// Runs in a page of every step: findings per rule, each {detail}.
function measureSteps() {
  const W = innerWidth;
  const SLACK = 0.5;
  const TOLERANCE = 1.5;  // sub-pixel text boxes, and the halo that lets a label touch a line
  const found = { h: [], i: [], j: [], l: [] };
  const box = (r) => `x ${r.left.toFixed(0)}–${r.right.toFixed(0)}, y ${r.top.toFixed(0)}–${r.bottom.toFixed(0)}`;
  const quote = (s) => {
    s = s.replace(/\s+/g, ' ').trim();
    return `“${s.length > 60 ? s.slice(0, 59) + '…' : s}”`;
  };
  const shown = (el) => el.getClientRects().length > 0 && el.checkVisibility({ visibilityProperty: true });

  // h: the page never scrolls sideways; what is outside the figure's frame stays within the page.
  if (document.documentElement.scrollWidth > W) {
    found.h.push({ detail: `the page scrolls sideways: scrollWidth ${document.documentElement.scrollWidth} > ${W}` });
  }
  const range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    const el = node.parentElement;
    if (!node.data.trim() || el.closest('div.figure-frame, svg, script, style') || !shown(el)) continue;
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width > 0 && (r.right > W + SLACK || r.left < -SLACK)) found.h.push({ detail: `text ${quote(node.data)} at ${box(r)}` });
  }
  for (const frame of document.querySelectorAll('div.figure-frame')) {
    const r = frame.getBoundingClientRect();
    if (r.right > W + SLACK) found.h.push({ detail: `the figure's frame reaches x ${r.right.toFixed(0)}` });
  }

  for (const figure of document.querySelectorAll('svg.figure')) {
    // i: every label in its own place. Text boxes by row of 20 px, so a figure of thousands
    // compares only neighbours; arrows by the rows they cross.
    const texts = [...figure.querySelectorAll('text')].filter((t) => t.textContent.trim() && shown(t))
      .map((el, n) => ({ el, n, r: el.getBoundingClientRect() }));
    const rows = new Map();
    const rowsOf = (r) => { const out = []; for (let k = Math.floor(r.top / 20); k <= Math.floor(r.bottom / 20); k++) out.push(k); return out; };
    for (const t of texts) for (const k of rowsOf(t.r)) { if (!rows.has(k)) rows.set(k, []); rows.get(k).push(t); }
    const told = new Set();
    for (const list of rows.values()) {
      for (let a = 0; a < list.length; a++) {
        for (let b = a + 1; b < list.length; b++) {
          const [p, q] = [list[a], list[b]];
          const dx = Math.min(p.r.right, q.r.right) - Math.max(p.r.left, q.r.left);
          const dy = Math.min(p.r.bottom, q.r.bottom) - Math.max(p.r.top, q.r.top);
          if (dx <= TOLERANCE || dy <= TOLERANCE || told.has(`${p.n} ${q.n}`)) continue;  // told once, in its first row
          told.add(`${p.n} ${q.n}`);
          found.i.push({ detail: `${quote(p.el.textContent)} at ${box(p.r)} overlaps ${quote(q.el.textContent)} at ${box(q.r)}` });
        }
      }
    }
    // A segment crosses a box if it has a point inside it: clip the segment to the box (Liang–Barsky).
    const crosses = (s, r) => {
      let [t0, t1] = [0, 1];
      const dx = s.x2 - s.x1, dy = s.y2 - s.y1;
      for (const [p, q] of [[-dx, s.x1 - r.left], [dx, r.right - s.x1], [-dy, s.y1 - r.top], [dy, r.bottom - s.y1]]) {
        if (p === 0) { if (q < 0) return false; continue; }
        const t = q / p;
        if (p < 0) t0 = Math.max(t0, t); else t1 = Math.min(t1, t);
        if (t0 > t1) return false;
      }
      return true;
    };
    const arrows = [...figure.querySelectorAll('g.step line')].map((line) => {
      const m = line.getScreenCTM();
      const a = new DOMPoint(line.x1.baseVal.value, line.y1.baseVal.value).matrixTransform(m);
      const b = new DOMPoint(line.x2.baseVal.value, line.y2.baseVal.value).matrixTransform(m);
      return { x1: a.x, y1: a.y, x2: b.x, y2: b.y, step: line.closest('g.step').id };
    });
    for (const t of texts) {
      const inner = { left: t.r.left + TOLERANCE, right: t.r.right - TOLERANCE, top: t.r.top + TOLERANCE, bottom: t.r.bottom - TOLERANCE };
      const arrow = arrows.find((s) => Math.max(s.y1, s.y2) >= inner.top && Math.min(s.y1, s.y2) <= inner.bottom && crosses(s, inner));
      if (arrow) found.i.push({ detail: `${quote(t.el.textContent)} at ${box(t.r)} lies on the arrow of ${arrow.step.replace(/.*-fig-/, '')}` });
    }
    // Nothing cut off at the figure's right edge.
    const edge = figure.getBoundingClientRect().right;
    for (const t of texts) if (t.r.right > edge + SLACK) found.i.push({ detail: `${quote(t.el.textContent)} at ${box(t.r)} runs past the figure's edge at x ${edge.toFixed(0)}` });
    // The column of numbers and times is theirs alone (a break's length is told there too).
    const gutter = Math.max(...[...figure.querySelectorAll('text.time')].map((t) => t.getBoundingClientRect().right));
    for (const t of texts) {
      if (t.el.matches('.number, .time, .break-label') || t.r.left >= gutter - TOLERANCE) continue;
      found.i.push({ detail: `${quote(t.el.textContent)} at ${box(t.r)} is in the column of numbers and times (to x ${gutter.toFixed(0)})` });
    }

    // j: the figure says each sentence of the table's "why it matters" whole, inside the figure.
    const whole = figure.getBoundingClientRect();
    for (const row of document.querySelectorAll('table.events tr[id]')) {
      const why = row.lastElementChild?.textContent.replace(/\s+/g, ' ').trim();
      if (!why) continue;
      const step = document.getElementById(row.id.replace(/-e(\d+)$/, '-fig-e$1'));
      const caption = step?.closest('svg.figure') === figure ? [...step.parentElement.querySelectorAll(`#${CSS.escape(step.id)} .caption, #${CSS.escape(step.id)} ~ .caption`)] : [];
      const said = caption.map((c) => [...c.querySelectorAll('text')].map((t) => t.textContent).join(' ')).join(' ').replace(/\s+/g, ' ');
      if (!said.includes(why)) found.j.push({ detail: `${row.id}: the figure says ${quote(said || 'nothing')}, the table ${quote(why)}` });
      for (const c of caption) for (const t of c.querySelectorAll('text')) {
        const r = t.getBoundingClientRect();
        if (r.right > whole.right + SLACK) found.j.push({ detail: `${row.id}: ${quote(t.textContent)} runs past the figure's edge at x ${whole.right.toFixed(0)}` });
      }
    }

    // l: a number and a time on every step's row, the number its own.
    for (const step of figure.querySelectorAll('g.step')) {
      const own = step.id.replace(/.*-fig-/, '');
      const number = step.querySelector('text.number');
      const time = step.querySelector('text.time');
      if (!number || !shown(number) || number.textContent !== own) found.l.push({ detail: `${own} shows no number${number ? ` (it shows ${quote(number.textContent)})` : ''}` });
      if (!time || !shown(time) || !/\d/.test(time.textContent)) found.l.push({ detail: `${own} shows no time` });
    }
  }
  // j: the lists of violations and protections above the figure, on screen.
  for (const li of document.querySelectorAll('ul.violations li, ul.protections li')) {
    range.selectNodeContents(li);
    const r = range.getBoundingClientRect();
    if (r.right > W + SLACK || r.left < -SLACK) found.j.push({ detail: `${quote(li.textContent)} at ${box(r)}` });
  }
  return found;
}

// Runs in a page of every step, scrolled: findings of rule k. Half way down the figure (in its
// frame, or the page when it has no frame of its own), each lane name in view must still be at
// the top of what shows, and on top of the steps passing under it.
async function lanesStayOnTop() {
  const found = [];
  const figure = document.querySelector('svg.figure');
  if (!figure) return found;
  const frame = figure.closest('div.figure-frame');
  const scroller = frame && frame.scrollHeight > frame.clientHeight + 1 ? frame : document.scrollingElement;
  if (scroller === document.scrollingElement && figure.getBoundingClientRect().height < innerHeight / 2) return found;  // nothing to scroll past
  if (frame) frame.scrollIntoView({ block: 'start' });
  if (scroller === frame) frame.scrollTop = (frame.scrollHeight - frame.clientHeight) / 2;
  else window.scrollTo(0, window.scrollY + figure.getBoundingClientRect().top + figure.getBoundingClientRect().height / 2);
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const view = scroller === frame ? frame.getBoundingClientRect() : { top: 0, bottom: innerHeight, left: 0, right: innerWidth };
  const names = [...(frame ?? figure).querySelectorAll('.lane-name')];
  if (names.length === 0) found.push({ detail: 'no lane names' });
  for (const name of names) {
    const r = name.getBoundingClientRect();
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    if (x < Math.max(view.left, 0) || x > Math.min(view.right, innerWidth)) continue;  // scrolled aside with its lane
    const on = document.elementFromPoint(x, y);
    if (r.top < view.top - 1 || r.bottom > view.top + 60 || !(on === name || name.closest('g')?.contains(on))) {
      found.push({ detail: `lane “${name.textContent}” at y ${r.top.toFixed(0)}–${r.bottom.toFixed(0)}, not on top at y ${view.top.toFixed(0)} after scrolling half way down ${scroller === frame ? 'its frame' : 'the page'}` });
    }
  }
  if (frame) frame.scrollTop = 0;
  window.scrollTo(0, 0);
  return found;
}

async function checkStepPage(browser, file) {
  const name = pageName(file);
  await atEachWidth(browser, file, async (page, width) => {
    const found = await page.evaluate(measureSteps);
    found.k = await page.evaluate(lanesStayOnTop);
    for (const [rule, list] of Object.entries(found)) for (const f of list) fail(name, width, rule, f);
    if (width === 1280 && screenshotDir && name === STEP_SCREENSHOT) {
      // The figure's frame at the top of the window, steps e1 to about e45 in it.
      await page.evaluate(() => document.querySelector('div.figure-frame')?.scrollIntoView({ block: 'start' }));
      await screenshot(page, { path: path.join(screenshotDir, 'gc-pause-40s-steps-d1-unfenced.png') });
      await page.evaluate(() => window.scrollTo(0, 0));
    }
  });
}

// The sample of pages of every step, or every one, in the same pool of tabs.
async function checkStepPages(browser) {
  const started = performance.now();
  const every = allFiles.filter((f) => /-steps$/.test(path.basename(path.dirname(f))));
  const all = process.env.LAYOUT_EVERY_STEP_PAGE === '1';
  const files = all ? every : every.filter((f) => STEP_SAMPLE.includes(pageName(f)));
  for (const name of all ? [STEP_SCREENSHOT] : STEP_SAMPLE) {
    if (!files.some((f) => pageName(f) === name)) fail(name, '-', 'g', { detail: 'page of every step missing' });
  }
  await inPool(browser, files, checkStepPage);
  console.log(`Checked ${files.length} of ${every.length} pages of every step in ${((performance.now() - started) / 1000).toFixed(1)} s` +
    (all ? '' : ' (LAYOUT_EVERY_STEP_PAGE=1 checks every one)'));
}

const failures = [];  // {page, width, rule, detail, key?, faded?}
const fail = (page, width, rule, finding) => failures.push({ page, width, rule, ...finding });

const seconds = new Map();  // per page, to name the slow ones
let screenshotTurn = Promise.resolve();

// Opens `file` in a tab of its own and, at each width, lets `atWidth(page, width)` measure it.
async function atEachWidth(browser, file, atWidth) {
  const started = performance.now();
  const page = await browser.newPage();
  page.setDefaultTimeout(120_000);
  try {
    for (const width of WIDTHS) {
      await page.setViewport({ width, height: HEIGHT });
      if (width === WIDTHS[0]) await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
      await atWidth(page, width);
    }
  } finally {
    await page.close();
    seconds.set(pageName(file), (performance.now() - started) / 1000);
  }
}

// Headless Chromium paints only the tab in front: two screenshots at once can hang.
async function screenshot(page, options) {
  const turn = screenshotTurn.then(async () => {
    await page.bringToFront();
    await page.screenshot(options);
  });
  screenshotTurn = turn.catch(() => {});
  await turn;
}

// Runs `check(browser, file)` over `files`, POOL tabs at a time; a page that does not open is a failure.
async function inPool(browser, files, check) {
  const queue = [...files];
  await Promise.all(Array.from({ length: POOL }, async () => {
    for (let file; (file = queue.shift());) {
      try {
        await check(browser, file);
      } catch (error) {
        fail(pageName(file), '-', 'g', { detail: `the page did not open or measure: ${error.message}` });
      }
    }
  }));
}

async function checkPage(browser, file) {
  const name = pageName(file);
  await atEachWidth(browser, file, async (page, width) => {
    const found = await page.evaluate(measure, RATE_LESSONS.includes(name));
    for (const [rule, list] of Object.entries(found)) for (const f of list) fail(name, width, rule, f);
    if (width === 1280 && screenshotDir && SCREENSHOTS.includes(name)) {
      await screenshot(page, { path: path.join(screenshotDir, name.replace(/\.html$/, '.png')), fullPage: true });
    }
  });
}

const started = performance.now();
// The browser opens the pages a reader lands on, the scenario pages and index.html, with rules
// a to e; then pages of every step in the subfolders, with rules h to l (checkStepPages).
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
  await inPool(browser, files, checkPage);
  await checkStepPages(browser);
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

const ruleWidth = Math.max(...Object.entries(RULES).map(([rule, title]) => `${rule}. ${title}`.length));
console.log(`\n${'rule'.padEnd(ruleWidth)}  failures  pages`);
for (const [rule, title] of Object.entries(RULES)) {
  const mine = failures.filter((f) => f.rule === rule);
  const faded = mine.filter((f) => f.faded).length;
  const pages = new Set(mine.map((f) => f.page)).size;
  console.log(`${`${rule}. ${title}`.padEnd(ruleWidth)} ${String(mine.length).padStart(9)}  ${String(pages).padStart(5)}${faded ? `   (${faded} on faded steps)` : ''}`);
}
const slowest = [...seconds].sort(([, p], [, q]) => q - p).slice(0, 3).map(([page, s]) => `${page} ${s.toFixed(1)} s`);
console.log(`\nChecked ${files.length} pages at ${WIDTHS.join(' and ')} px in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
  `(slowest: ${slowest.join(', ')}): ${failures.length ? `${failures.length} failures` : 'no failures'}`);
process.exit(failures.length ? 1 : 0);
