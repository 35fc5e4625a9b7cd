#!/usr/bin/env node
// `npm run test:report-browser`: `helix report`'s page as a person sees it, in Debian's headless
// Chromium (installed here when missing and this is root with apt-get; otherwise ONE `SKIPPED` line
// and exit 0). A real night first (scripts/lib/report-night.mjs: `helix run --jobs 3` on the
// current-DDx stand-in), whose run writes its page; then the page opened from its file, offline —
// Chromium in a network namespace with no interface up where the machine allows one — and checked:
//   - the page made no request but its own document (every request the DevTools protocol saw);
//   - it has as many attempt elements (data-attempt, with data-bead and data-outcome) as the event
//     log has claims, each drawn with a size, and the outcomes of the log's attempt_end events;
//   - its script ran: a click on a bar lights its bead's row;
//   - a screenshot of it is not blank (colours counted in the PNG).
// Prints `N passed, M failed` last; exits 1 when a check failed. The caller builds first.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canIsolateNetwork, ensureChromium, launchChromium, openPage, pngColours } from './lib/chromium.mjs';
import { runReportNight } from './lib/report-night.mjs';

const say = (line) => process.stdout.write(`helix: test:report-browser: ${line}\n`);
const chromium = ensureChromium(say);
if (chromium.missing) {
  say(`SKIPPED — ${chromium.missing}`);
  process.exit(0);
}

const night = runReportNight();
if (night.status !== 0 || !night.eventLog) {
  process.stderr.write(night.stderr);
  say(`the night itself failed (helix run exited ${night.status})`);
  process.exit(1);
}
const events = readFileSync(night.eventLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const claims = events.filter((e) => e.type === 'claim');
const outcomes = events.filter((e) => e.type === 'attempt_end').map((e) => e.outcome);
say(`a night of ${claims.length} attempts (${[...new Set(outcomes)].join(', ')}) on ${events.find((e) => e.type === 'run_start').jobs} slots: ${night.page}`);

const offline = canIsolateNetwork();
say(offline ? 'network: Chromium in a namespace of its own with no interface up' : 'network: no namespace here (root and unshare needed); the requests the page makes are still counted');
const browser = await launchChromium(chromium.path, { offline });
const results = [];
const check = (name, ok, detail) => {
  results.push(ok);
  say(`${ok ? 'ok' : 'FAILED'} — ${name}${detail ? `: ${detail}` : ''}`);
};
try {
  const url = `file://${night.page}`;
  const page = await openPage(browser, url, { width: 1280, height: 900 });
  const others = page.requests.filter((r) => r !== url);
  check('no request leaves the page', page.requests.length >= 1 && others.length === 0, others.length ? others.join(', ') : `${page.requests.length} request: the page itself`);
  const drawn = await page.evaluate(`[...document.querySelectorAll('[data-attempt]')].map((g) => { const r = g.getBoundingClientRect(); return [g.dataset.bead, g.dataset.attempt, g.dataset.outcome, r.width > 0 && r.height > 0]; })`);
  check('an attempt element for each attempt of the event log', drawn.length === claims.length, `${drawn.length} elements, ${claims.length} claims`);
  check('each names its bead, attempt and outcome, and is drawn', drawn.length > 0 && drawn.every(([bead, attempt, outcome, shown]) => bead && attempt && outcome && shown));
  const drawnOutcomes = drawn.map((d) => d[2]).sort().join(',');
  check('their outcomes are the log\'s', drawnOutcomes === [...outcomes].sort().join(','), drawnOutcomes);
  const shot = await page.screenshot();
  const png = pngColours(shot);
  const file = join(night.work, 'report.png');
  writeFileSync(file, shot);
  check('a screenshot that is not blank', png.colours >= 8, `${png.width}×${png.height}, ${png.colours} colours (${file})`);
  const lit = await page.evaluate(`(() => { const bar = document.querySelector('[data-attempt]'); bar.dispatchEvent(new MouseEvent('click', { bubbles: true })); const row = document.getElementById('bead-' + bar.dataset.bead); return row ? row.classList.contains('lit') : false; })()`);
  check("the page's script runs: a click on a bar lights its bead's row", lit === true);
} finally {
  await browser.close();
}
const failed = results.filter((ok) => !ok).length;
process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
