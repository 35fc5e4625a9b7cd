// Reading a finished simulation: success rates per round from helix's own run-complete lines,
// effectiveness of the seeded memories from the arm's SQLite store, injection counts from the
// stand-in agent's call log, the claims of issue 8, and the text table and SVG plot.

export const ARMS = [
  { key: 'off', label: 'memory off', colour: '#888888' },
  { key: 'honest', label: 'memory on, honest agent', colour: '#1f77b4' },
  { key: 'dishonest', label: 'memory on, dishonest agent', colour: '#d62728' },
];

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
export const fixed = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

/** Rounds in the last third (at least one). */
export function lastThird(rounds) {
  const n = Math.max(1, Math.floor(rounds.length / 3));
  return rounds.slice(rounds.length - n);
}

/** Pooled success rate (completed / attempted) over some rounds. */
export function pooledRate(rounds) {
  const attempted = rounds.reduce((a, r) => a + r.attempted, 0);
  const completed = rounds.reduce((a, r) => a + r.completed, 0);
  return attempted ? completed / attempted : NaN;
}

/**
 * Effectiveness of the seeded memories at the end of an arm. `memories` maps name → {helped,
 * failed} (undefined when the store no longer has it); `injections` maps name → how many prompts
 * carried it.
 */
export function memoryStats(seeded, memories, injections, minInjections) {
  const eff = (m) => (m && m.helped + m.failed > 0 ? m.helped / (m.helped + m.failed) : undefined);
  const useful = seeded.filter((s) => s.role === 'useful').map((s) => ({ ...s, eff: eff(memories[s.name]), injected: injections[s.name] ?? 0 }));
  const distractors = seeded.filter((s) => s.role === 'distractor').map((s) => ({ ...s, eff: eff(memories[s.name]), injected: injections[s.name] ?? 0 }));
  const rated = (xs) => xs.filter((x) => x.eff !== undefined);
  const often = rated(distractors).filter((d) => d.injected >= minInjections);
  return {
    useful: { count: useful.length, rated: rated(useful).length, mean: mean(rated(useful).map((u) => u.eff)), min: Math.min(...rated(useful).map((u) => u.eff)), injected: mean(useful.map((u) => u.injected)) },
    distractors: { count: distractors.length, rated: rated(distractors).length, mean: mean(rated(distractors).map((d) => d.eff)), injected: mean(distractors.map((d) => d.injected)) },
    often: { minInjections, count: often.length, mean: mean(often.map((d) => d.eff)), max: Math.max(...often.map((d) => d.eff)), below: often.filter((d) => d.eff < 0.25).length },
  };
}

/** Issue 8's expectations, each with the numbers it was judged on. */
export function judgeClaims(result) {
  const off = pooledRate(lastThird(result.arms.off.rounds));
  const honest = pooledRate(lastThird(result.arms.honest.rounds));
  const stats = result.arms.honest.stats;
  return [
    { claim: 'honest arm success ≥ 1.5× memory-off over the last third of rounds', value: `${fixed(honest)} vs ${fixed(off)} (${fixed(honest / off)}×)`, holds: honest >= 1.5 * off },
    {
      claim: `every distractor injected ≥ ${stats.often.minInjections} times ends below 0.25 effectiveness (honest arm)`,
      value: `${stats.often.below}/${stats.often.count} below, max ${fixed(stats.often.max, 3)}`,
      holds: stats.often.count > 0 && stats.often.below === stats.often.count,
    },
    { claim: 'useful memories above 0.7 effectiveness (honest arm, mean)', value: `mean ${fixed(stats.useful.mean, 3)}, min ${fixed(stats.useful.min, 3)} over ${stats.useful.rated}/${stats.useful.count} rated`, holds: stats.useful.mean > 0.7 },
  ];
}

export function renderTable(result) {
  const lines = [];
  const { rounds } = result.config;
  lines.push(`| round | ${ARMS.map((a) => a.label).join(' | ')} |`);
  lines.push(`|---:|${ARMS.map(() => '---:').join('|')}|`);
  for (let i = 0; i < rounds; i++) {
    const cells = ARMS.map((a) => {
      const r = result.arms[a.key].rounds[i];
      return `${fixed(r.completed / r.attempted)} (${r.completed}/${r.attempted})`;
    });
    lines.push(`| ${i + 1} | ${cells.join(' | ')} |`);
  }
  const third = ARMS.map((a) => fixed(pooledRate(lastThird(result.arms[a.key].rounds))));
  lines.push(`| last third | ${third.map((t) => `**${t}**`).join(' | ')} |`);
  return lines.join('\n');
}

export function renderEffectiveness(result) {
  const lines = ['| arm | useful: mean (min) | distractors: mean | distractors injected ≥ ' + result.config.minInjections + '×: below 0.25 / mean / max | useful − distractor |', '|---|---:|---:|---:|---:|'];
  for (const arm of ARMS.slice(1)) {
    const s = result.arms[arm.key].stats;
    lines.push(
      `| ${arm.label} | ${fixed(s.useful.mean, 3)} (${fixed(s.useful.min, 3)}) | ${fixed(s.distractors.mean, 3)} | ${s.often.below}/${s.often.count} / ${fixed(s.often.mean, 3)} / ${fixed(s.often.max, 3)} | ${fixed(s.useful.mean - s.distractors.mean, 3)} |`,
    );
  }
  return lines.join('\n');
}

/** A hand-written SVG line chart of the success rate per round, one line per arm. */
export function renderSvg(result) {
  const width = 640;
  const height = 380;
  const pad = { left: 56, right: 20, top: 40, bottom: 68 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const { rounds } = result.config;
  const r1 = (v) => Math.round(v * 10) / 10;
  const x = (i) => r1(pad.left + (rounds === 1 ? plotW / 2 : (i * plotW) / (rounds - 1)));
  const y = (v) => r1(pad.top + plotH - v * plotH);
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  const c = result.config;
  out.push(`<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">Success rate per round (seed ${c.seed}, ${c.families} families, p_base ${c.pBase}, p_help ${c.pHelp})</text>`);
  for (let t = 0; t <= 10; t += 2) {
    const v = t / 10;
    out.push(`<line x1="${pad.left}" x2="${width - pad.right}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${pad.left - 8}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(1)}</text>`);
  }
  for (let i = 0; i < rounds; i++) out.push(`<text x="${x(i)}" y="${height - pad.bottom + 18}" text-anchor="middle">${i + 1}</text>`);
  out.push(`<line x1="${pad.left}" x2="${pad.left}" y1="${pad.top}" y2="${pad.top + plotH}" stroke="#333"/>`);
  out.push(`<line x1="${pad.left}" x2="${width - pad.right}" y1="${pad.top + plotH}" y2="${pad.top + plotH}" stroke="#333"/>`);
  out.push(`<text x="${pad.left + plotW / 2}" y="${height - pad.bottom + 36}" text-anchor="middle">round</text>`);
  out.push(`<text x="16" y="${pad.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${pad.top + plotH / 2})">completed / attempted</text>`);
  for (const [rate, label] of [[c.pBase, 'p_base'], [c.pHelp, 'p_help']]) {
    out.push(`<line x1="${pad.left}" x2="${width - pad.right}" y1="${y(rate)}" y2="${y(rate)}" stroke="#bbb" stroke-dasharray="4 4"/>`);
    out.push(`<text x="${width - pad.right - 4}" y="${y(rate) - 4}" text-anchor="end" fill="#999">${label} ${rate}</text>`);
  }
  ARMS.forEach((arm, k) => {
    const points = result.arms[arm.key].rounds.map((r, i) => `${x(i)},${y(r.completed / r.attempted)}`);
    out.push(`<polyline fill="none" stroke="${arm.colour}" stroke-width="2" points="${points.join(' ')}"/>`);
    for (const p of points) {
      const [px, py] = p.split(',');
      out.push(`<circle cx="${px}" cy="${py}" r="2.5" fill="${arm.colour}"/>`);
    }
    // The legend is one row under the axis, where no curve can cover it.
    const lx = pad.left + k * 190;
    const ly = height - 12;
    out.push(`<line x1="${lx}" x2="${lx + 20}" y1="${ly - 4}" y2="${ly - 4}" stroke="${arm.colour}" stroke-width="2"/>`);
    out.push(`<text x="${lx + 26}" y="${ly}">${arm.label}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
