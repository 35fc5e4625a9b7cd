#!/usr/bin/env node
// `npm run docs:screens` (after watching-screens.mjs, the board's): the report's screenshot in docs/watching.md, made from a real night — the
// built bin/helix, `helix run --jobs 3` on the current-DDx stand-in (scripts/lib/report-night.mjs:
// ten beads, a rate-limit pause, a bead whose verification always fails) — whose run wrote its page;
// Debian's headless Chromium, offline where the machine allows (scripts/lib/chromium.mjs), takes the
// whole page at 1280 px wide. Writes docs/watching-report.png; run by hand when the page changes, not
// by CI (the picture differs with every night's timing).
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { canIsolateNetwork, ensureChromium, launchChromium, openPage, pngColours } from './lib/chromium.mjs';
import { runReportNight } from './lib/report-night.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs');
const say = (line) => process.stdout.write(`helix: docs:screens: ${line}\n`);

const chromium = ensureChromium(say);
if (chromium.missing) {
  say(`not made — ${chromium.missing}`);
  process.exit(1);
}
const night = runReportNight();
if (night.status !== 0 || !night.page) {
  process.stderr.write(night.stderr);
  throw new Error(`helix run exited ${night.status}`);
}
const browser = await launchChromium(chromium.path, { offline: canIsolateNetwork() });
try {
  const page = await openPage(browser, `file://${night.page}`, { width: 1280, height: 900 });
  const height = await page.evaluate('Math.ceil(document.documentElement.scrollHeight)');
  const shot = await page.screenshot({ captureBeyondViewport: true, clip: { x: 0, y: 0, width: 1280, height, scale: 1 } });
  const file = join(OUT, 'watching-report.png');
  writeFileSync(file, shot);
  const png = pngColours(shot);
  say(`${file}: ${png.width}×${png.height}, ${png.colours} colours, from ${night.page}`);
} finally {
  await browser.close();
}
