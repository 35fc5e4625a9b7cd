// Reading finished simulations: what each arm did (from helix's run-complete lines, the agent's
// call log and the store's counts after every round), the claims with 95% intervals over seeds,
// and the text and SVG renderings. Pure functions of engine.mjs's results.
import { recommended } from './reader.mjs';
import { FAMILIES } from './world.mjs';

/** helix's prune line (src/memory/constants.ts): effectiveness under 0.25 with at least 3 uses. */
const PRUNE_THRESHOLD = 0.25;
const PRUNE_MIN_USES = 3;

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
export const fixed = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
const effectiveness = (m) => (m && m.helped + m.failed > 0 ? m.helped / (m.helped + m.failed) : undefined);

/** completed / attempted over some rounds. */
export function successRate(rounds) {
  const attempted = rounds.reduce((a, r) => a + r.attempted, 0);
  return attempted ? rounds.reduce((a, r) => a + r.completed, 0) / attempted : NaN;
}

/** The fact a pattern memory states: its family and value, or undefined (records, other text). */
function factOf(memory, families) {
  if (memory.type !== 'pattern') return undefined;
  const text = `${memory.trigger} ${memory.resolution}`;
  for (const family of families) {
    const [value] = recommended(family, text);
    if (value) return { family: family.key, value };
  }
  return undefined;
}

/**
 * What a fact memory is worth at the end of the run: `right` (the family's truth now), `stale`
 * (the truth before the change, for a family that changed) or `wrong` (never true).
 */
function classOf(fact, world) {
  const now = world.changed[fact.family] ?? world.truth[fact.family];
  if (fact.value === now) return 'right';
  if (world.changed[fact.family] && fact.value === world.truth[fact.family]) return 'stale';
  return 'wrong';
}

const third = (config) => Math.max(1, Math.floor(config.rounds / 3));

/** The numbers the claims use, for one arm of one seed. */
export function armMetrics(arm, config) {
  const families = FAMILIES.slice(0, config.families);
  const { world, calls, rounds, snapshots } = arm;
  const n = third(config);
  const early = (r) => r <= n;
  const late = (r) => r > config.rounds - n;
  const misleading = new Set(arm.seeded.map((s) => s.name));
  const final = snapshots.at(-1);
  const byName = new Map(final.map((m) => [m.name, m]));

  const perPrompt = (when) => mean(calls.filter((c) => when(c.round)).map((c) => c.injected.filter((name) => misleading.has(name)).length));
  const facts = final.map((m) => ({ m, fact: factOf(m, families) })).filter((x) => x.fact);
  const classMean = (...classes) => mean(facts.filter((x) => classes.includes(classOf(x.fact, world))).map((x) => effectiveness(x.m)).filter((e) => e !== undefined));

  // Stale: the patterns that stated a changing family's truth just before the change.
  const changed = Object.keys(world.changed);
  const beforeChange = snapshots[config.changeAt - 2] ?? [];
  const stale = beforeChange.filter((m) => {
    const fact = factOf(m, families);
    return fact && changed.includes(fact.family) && fact.value === world.truth[fact.family];
  });
  const staleNames = new Set(stale.map((m) => m.name));
  const changedCalls = (when) => calls.filter((c) => when(c.round) && changed.includes(c.family));
  const followsStale = (cs) => (cs.length ? cs.filter((c) => c.source === 'memory' && staleNames.has(c.memory)).length / cs.length : NaN);
  const lastTwo = (r) => r > config.rounds - 2;

  // When the store already held the family's current truth (at the end of the round before), how
  // often the prompt carried it: in the last third.
  const truthAt = (family, round) => (round >= config.changeAt && world.changed[family]) || world.truth[family];
  const rightNames = (family, round) => {
    const before = round >= 2 ? snapshots[round - 2] : [];
    return new Set(before.filter((m) => { const f = factOf(m, families); return f && f.family === family && f.value === truthAt(family, round); }).map((m) => m.name));
  };
  const known = calls.filter((c) => late(c.round)).map((c) => ({ c, right: rightNames(c.family, c.round) })).filter((x) => x.right.size > 0);
  const rightShownLate = known.length ? known.filter((x) => x.c.injected.some((name) => x.right.has(name))).length / known.length : NaN;

  // Fair credit: valid notes about other settings of the file, under the prune line at the end.
  const neighbourNames = new Set((arm.neighbours ?? []).map((n) => n.name));
  const underPruneLine = (m) => m.helped + m.failed >= PRUNE_MIN_USES && effectiveness(m) < PRUNE_THRESHOLD;

  return {
    success: successRate(rounds),
    rightShownLate,
    neighboursUnderPruneLine: neighbourNames.size ? final.filter((m) => neighbourNames.has(m.name) && underPruneLine(m)).length : NaN,
    neighboursWornDown: neighbourNames.size ? final.filter((m) => neighbourNames.has(m.name) && m.helped + m.failed > 0 && effectiveness(m) < PRUNE_THRESHOLD).length : NaN,
    neighboursPerPrompt: neighbourNames.size ? mean(calls.map((c) => c.injected.filter((name) => neighbourNames.has(name)).length)) : NaN,
    successBefore: successRate(rounds.filter((r) => r.round < config.changeAt)),
    successAfter: successRate(rounds.filter((r) => r.round >= config.changeAt)),
    successLate: successRate(rounds.filter((r) => late(r.round))),
    misleadingEffectiveness: mean(arm.seeded.map((s) => effectiveness(byName.get(s.name))).filter((e) => e !== undefined)),
    misleadingPerPromptEarly: perPrompt(early),
    misleadingPerPromptLate: perPrompt(late),
    rightEffectiveness: classMean('right'),
    wrongEffectiveness: classMean('wrong', 'stale'),
    staleCount: stale.length,
    staleBefore: mean(stale.map(effectiveness).filter((e) => e !== undefined)),
    staleEnd: mean(final.filter((m) => staleNames.has(m.name)).map(effectiveness).filter((e) => e !== undefined)),
    staleFollowedAtChange: followsStale(changedCalls((r) => r === config.changeAt)),
    staleFollowedLate: followsStale(changedCalls(lastTwo)),
    sources: Object.fromEntries(['memory', 'investigation', 'guess'].map((s) => [s, calls.filter((c) => c.source === s).length])),
  };
}

// Two-sided 95% Student t quantiles by degrees of freedom (1..30); beyond 30, 1.96 is close enough.
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/** Mean and 95% t-interval over seeds (NaN values, e.g. nothing rated, are left out). */
export function interval(values) {
  const xs = values.filter(Number.isFinite);
  const m = mean(xs);
  if (xs.length < 2) return { mean: m, low: NaN, high: NaN, n: xs.length };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
  const half = (T95[xs.length - 2] ?? 1.96) * (sd / Math.sqrt(xs.length));
  return { mean: m, low: m - half, high: m + half, n: xs.length };
}

export const showInterval = (i, digits = 2) => `${fixed(i.mean, digits)} [${fixed(i.low, digits)}, ${fixed(i.high, digits)}]`;

/** The claims, the mechanism each tests (its `--ablate` name), and the arms each needs. */
export const CLAIMS = {
  gain: { mechanism: 'learn', arms: ['off', 'honest'] },
  misleading: { mechanism: 'ranking', arms: ['crowded'] },
  stale: { mechanism: 'decay', arms: ['honest'] },
  overclaim: { mechanism: 'gating', arms: ['overclaim'] },
  fair: { mechanism: 'credit', arms: ['neighbours'] },
};

/**
 * The claims, each judged on its 95% interval over seeds so one lucky seed cannot carry it.
 * `seeds` is a list of { arms: { key: metrics } }; a claim whose arms were not run is left out.
 */
export function judgeClaims(seeds, margins) {
  const per = (arm, key) => seeds.map((s) => s.arms[arm]?.[key]).filter((v) => v !== undefined);
  const ran = (claim) => CLAIMS[claim].arms.every((arm) => seeds.length > 0 && seeds.every((s) => s.arms[arm]));
  const claims = [];
  const push = (key, claim, value, holds) => claims.push({ key, mechanism: CLAIMS[key].mechanism, claim, value, holds });
  if (ran('gain')) {
    const gain = interval(seeds.map((s) => s.arms.honest.success - s.arms.off.success));
    push(
      'gain',
      `memory on (honest agent) beats memory off by more than ${margins.gain} in success rate over the whole run`,
      `on − off ${showInterval(gain)} (on ${showInterval(interval(per('honest', 'success')))}, off ${showInterval(interval(per('off', 'success')))})`,
      gain.low > margins.gain,
    );
  }
  if (ran('misleading')) {
    const eff = interval(per('crowded', 'misleadingEffectiveness'));
    const shown = interval(per('crowded', 'rightShownLate'));
    push(
      'misleading',
      `with more misleading notes than prompt slots, they end below ${margins.misleadingEffectiveness} effectiveness and, once the store holds the right fact, it is in at least ${margins.rightShown} of the prompts (last third)`,
      `misleading effectiveness ${showInterval(eff, 3)}; right fact shown ${showInterval(shown)}; misleading per prompt ${fixed(interval(per('crowded', 'misleadingPerPromptEarly')).mean)} → ${fixed(interval(per('crowded', 'misleadingPerPromptLate')).mean)}`,
      eff.high < margins.misleadingEffectiveness && shown.low >= margins.rightShown,
    );
  }
  if (ran('stale')) {
    const drop = interval(seeds.map((s) => s.arms.honest.staleBefore - s.arms.honest.staleEnd));
    const followed = interval(per('honest', 'staleFollowedLate'));
    push(
      'stale',
      `stale facts lose more than ${margins.staleDrop} effectiveness after the world changes, and are followed in fewer than ${margins.staleFollowed} of the last two rounds' attempts`,
      `drop ${showInterval(drop, 3)}; followed ${showInterval(followed)} (at the change ${showInterval(interval(per('honest', 'staleFollowedAtChange')))})`,
      drop.low > margins.staleDrop && followed.high < margins.staleFollowed,
    );
  }
  if (ran('overclaim')) {
    const gap = interval(seeds.map((s) => s.arms.overclaim.rightEffectiveness - s.arms.overclaim.wrongEffectiveness));
    push(
      'overclaim',
      `with an agent that claims success and every injected memory, facts the check rejects still end more than ${margins.overclaimGap} below facts it accepts`,
      `right − wrong ${showInterval(gap, 3)} (right ${showInterval(interval(per('overclaim', 'rightEffectiveness')), 3)}, wrong or stale ${showInterval(interval(per('overclaim', 'wrongEffectiveness')), 3)})`,
      gap.low > margins.overclaimGap,
    );
  }
  if (ran('fair')) {
    const worn = per('neighbours', 'neighboursWornDown');
    const under = per('neighbours', 'neighboursUnderPruneLine');
    push(
      'fair',
      'with valid notes about other settings of each bead\'s file in the store (injected, never needed), honest rounds wear none of them down: in no seed does one end rated below the prune threshold (0.25), let alone under the prune line',
      `valid neighbours rated below 0.25 ${showInterval(interval(worn))} (most in one seed: ${Math.max(...worn)}); under the prune line ${showInterval(interval(under))}; neighbours per prompt ${fixed(interval(per('neighbours', 'neighboursPerPrompt')).mean)}`,
      Math.max(...worn) === 0,
    );
  }
  return claims;
}

/** A per-arm table of the means over seeds. */
export function renderArmTable(seeds, arms) {
  const rows = [
    ['success rate, all rounds', 'success'],
    ['success before the change', 'successBefore'],
    ['success after the change', 'successAfter'],
    ['misleading: effectiveness at the end', 'misleadingEffectiveness', 3],
    ['misleading: per prompt, first third', 'misleadingPerPromptEarly'],
    ['misleading: per prompt, last third', 'misleadingPerPromptLate'],
    ['right facts: effectiveness', 'rightEffectiveness', 3],
    ['right fact in the prompt (when stored), last third', 'rightShownLate'],
    ['wrong or stale facts: effectiveness', 'wrongEffectiveness', 3],
    ['stale: effectiveness before the change', 'staleBefore', 3],
    ['stale: effectiveness at the end', 'staleEnd', 3],
    ['stale: followed, last two rounds', 'staleFollowedLate'],
    ['valid neighbours: per prompt', 'neighboursPerPrompt'],
    ['valid neighbours: rated below 0.25 at the end', 'neighboursWornDown'],
    ['valid neighbours: under the prune line at the end', 'neighboursUnderPruneLine'],
  ];
  const present = arms.filter((a) => seeds.every((s) => s.arms[a.key]));
  const lines = [`| mean over ${seeds.length} seeds | ${present.map((a) => a.label).join(' | ')} |`, `|---|${present.map(() => '---:').join('|')}|`];
  for (const [label, key, digits] of rows) {
    lines.push(`| ${label} | ${present.map((a) => (a.key === 'off' && key !== 'success' && !key.startsWith('success') ? '' : fixed(mean(seeds.map((s) => s.arms[a.key][key]).filter(Number.isFinite)), digits ?? 2))).join(' | ')} |`);
  }
  const sources = present.map((a) => {
    const total = { memory: 0, investigation: 0, guess: 0 };
    for (const s of seeds) for (const k of Object.keys(total)) total[k] += s.arms[a.key].sources[k];
    const all = total.memory + total.investigation + total.guess;
    return `${Math.round((100 * total.memory) / all)} / ${Math.round((100 * total.investigation) / all)} / ${Math.round((100 * total.guess) / all)}`;
  });
  lines.push(`| attempts from memory / investigation / guess, % | ${sources.join(' | ')} |`);
  return lines.join('\n');
}

// ── SVG ───────────────────────────────────────────────────────────────────────────────────────

const r1 = (v) => Math.round(v * 10) / 10;
const esc = (t) => String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * A small line chart: `series` = [{ label, colour, points: [{ x, y, low?, high? }] }], with
 * optional error bars. Hand-written SVG, no dependencies.
 */
export function lineChart({ title, xLabel, yLabel, series, yMin = 0, yMax = 1, xTicks, width = 640, height = 380, notes = [] }) {
  const legendRows = Math.ceil(series.length / 3);
  const extra = 16 * (legendRows - 1) + 16 * notes.length;
  const pad = { left: 60, right: 20, top: 44, bottom: 78 + extra };
  const h = height + extra;
  const plotW = width - pad.left - pad.right;
  const plotH = h - pad.top - pad.bottom;
  const xs = xTicks.map((t) => t.x);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const x = (v) => r1(pad.left + (x1 === x0 ? plotW / 2 : ((v - x0) * plotW) / (x1 - x0)));
  const y = (v) => r1(pad.top + plotH - ((v - yMin) * plotH) / (yMax - yMin));
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${h}" fill="white"/>`);
  out.push(`<text x="${width / 2}" y="22" text-anchor="middle" font-size="14">${esc(title)}</text>`);
  const step = (yMax - yMin) / 5;
  for (let i = 0; i <= 5; i++) {
    const v = yMin + i * step;
    out.push(`<line x1="${pad.left}" x2="${width - pad.right}" y1="${y(v)}" y2="${y(v)}" stroke="${Math.abs(v) < 1e-9 ? '#999' : '#e5e5e5'}"/>`);
    out.push(`<text x="${pad.left - 8}" y="${y(v) + 4}" text-anchor="end">${fixed(v, 2)}</text>`);
  }
  for (const t of xTicks) out.push(`<text x="${x(t.x)}" y="${pad.top + plotH + 18}" text-anchor="middle">${esc(t.label)}</text>`);
  out.push(`<line x1="${pad.left}" x2="${pad.left}" y1="${pad.top}" y2="${pad.top + plotH}" stroke="#333"/>`);
  out.push(`<line x1="${pad.left}" x2="${width - pad.right}" y1="${pad.top + plotH}" y2="${pad.top + plotH}" stroke="#333"/>`);
  out.push(`<text x="${pad.left + plotW / 2}" y="${pad.top + plotH + 38}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text x="16" y="${pad.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${pad.top + plotH / 2})">${esc(yLabel)}</text>`);
  series.forEach((s, k) => {
    const pts = s.points.filter((p) => Number.isFinite(p.y));
    for (const p of pts) {
      if (Number.isFinite(p.low) && Number.isFinite(p.high)) {
        out.push(`<line x1="${x(p.x)}" x2="${x(p.x)}" y1="${y(Math.max(yMin, p.low))}" y2="${y(Math.min(yMax, p.high))}" stroke="${s.colour}" stroke-opacity="0.5"/>`);
      }
    }
    out.push(`<polyline fill="none" stroke="${s.colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''} points="${pts.map((p) => `${x(p.x)},${y(p.y)}`).join(' ')}"/>`);
    for (const p of pts) out.push(`<circle cx="${x(p.x)}" cy="${y(p.y)}" r="2.5" fill="${s.colour}"/>`);
    const lx = pad.left + (k % 3) * 190;
    const ly = pad.top + plotH + 58 + Math.floor(k / 3) * 16;
    out.push(`<line x1="${lx}" x2="${lx + 20}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}/>`);
    out.push(`<text x="${lx + 26}" y="${ly}">${esc(s.label)}</text>`);
  });
  notes.forEach((note, i) => out.push(`<text x="${pad.left}" y="${h - 10 - 16 * (notes.length - 1 - i)}" fill="#666" font-size="11">${esc(note)}</text>`));
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
