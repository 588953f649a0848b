// Opens a study page (`locksim sweep --vary … --report`, and the course's <lesson>-study.html)
// in headless Chromium and checks each chart as a reader sees it, at 1280 and 800 px: the
// page never scrolls sideways; every value label, point and legend entry of a chart lies
// on screen, inside what its frame shows without scrolling (the last value and the legend
// off the page at 800 px was a reviewer's finding); the legend has an entry per series and
// one for the band of zeros; and no line joins a point in the band of zeros to a point on
// the log scale, since such a line would climb decades no run measured.
// tests/study_chart_layout_test.sh generates the page and runs it.
//   node tests/layout/study_chart_test.mjs PAGE [SCREENSHOT]
import { checkAtWidths } from './page_at_widths.mjs';

const [pageFile, screenshot] = process.argv.slice(2);
if (!pageFile) {
  console.error('usage: node study_chart_test.mjs PAGE [SCREENSHOT]');
  process.exit(2);
}

// Runs in the page: a list of failures, each a sentence.
function measure() {
  const failures = [];
  const SLACK = 0.5;
  const box = (r) => `x ${r.left.toFixed(0)}–${r.right.toFixed(0)}`;
  if (document.documentElement.scrollWidth > innerWidth) {
    failures.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${innerWidth}`);
  }
  const charts = [...document.querySelectorAll('svg.study')];
  if (charts.length === 0) failures.push('no study chart on the page');
  for (const chart of charts) {
    const name = chart.closest('section')?.id ?? 'a chart';
    // What a reader sees without scrolling anything sideways: the page, cut to the frame.
    const frame = chart.closest('.chart-frame')?.getBoundingClientRect() ?? { left: 0, right: innerWidth };
    const left = Math.max(0, frame.left);
    const right = Math.min(innerWidth, frame.right);
    const shown = (el, what) => {
      const r = el.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) failures.push(`${name}: ${what} has no size`);
      else if (r.left < left - SLACK || r.right > right + SLACK) {
        failures.push(`${name}: ${what} at ${box(r)} is off what the page shows, x ${left.toFixed(0)}–${right.toFixed(0)}`);
      }
    };
    for (const tick of chart.querySelectorAll('g.value-tick')) shown(tick, `the value ${tick.querySelector('title')?.textContent}`);
    for (const point of chart.querySelectorAll('g.point')) shown(point, `the point of series ${point.dataset.series} at ${point.dataset.value}`);
    const entries = [...chart.querySelectorAll('g.legend-entry')];
    for (const entry of entries) shown(entry, `the legend's “${entry.textContent.trim()}”`);
    const series = new Set([...chart.querySelectorAll('g.point')].map((p) => p.dataset.series));
    if (entries.filter((e) => !e.classList.contains('floor-key')).length !== series.size) {
      failures.push(`${name}: the legend names ${entries.length - 1} series, the chart draws ${series.size}`);
    }
    if (!chart.querySelector('g.legend-entry.floor-key')) failures.push(`${name}: the legend has no key to the band of zeros`);

    // In the SVG's own units: which end of each line segment is in the band, which on the scale.
    const band = chart.querySelector('rect.zero-band');
    if (!band) continue;
    const bandTop = Number(band.getAttribute('y'));
    const bandBottom = bandTop + Number(band.getAttribute('height'));
    const inBand = (y) => y >= bandTop - SLACK && y <= bandBottom + SLACK;
    for (const line of chart.querySelectorAll('path.series-line')) {
      let from = null;
      for (const [, command, x, y] of line.getAttribute('d').matchAll(/([ML])\s*(-?[\d.]+)[ ,](-?[\d.]+)/g)) {
        const to = { x: Number(x), y: Number(y) };
        if (command === 'L' && from && inBand(from.y) !== inBand(to.y)) {
          failures.push(`${name}: a line joins a point in the band of zeros to one on the log scale, ` +
            `(${from.x}, ${from.y}) to (${to.x}, ${to.y}): it climbs decades no run measured`);
        }
        from = to;
      }
    }
  }
  return { failures, count: charts.length };
}

await checkAtWidths(pageFile, measure, 'study charts', { path: screenshot, width: 800, selector: 'section.varied' });
