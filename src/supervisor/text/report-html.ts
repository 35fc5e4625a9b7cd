// `helix report`'s page: a night (core/night.ts) as ONE self-contained HTML file — a lane per slot
// with every attempt a bar coloured by its outcome, the limit pauses and infrastructure waits
// shaded, how many attempts were in flight over time, a row per bead (attempts, outcome, reason,
// verification output, spend, time, log lines, memories), the totals and the blockers. Inline
// styles, SVG and script only, and a Content-Security-Policy that lets the page load nothing: it
// opens from a file, offline, and asks no server for anything. Every text from the log (titles,
// reasons, output: an agent's or a bead author's words) is HTML-escaped. Pure: the shell reads the
// log and writes the file (shell/report.ts).
import { plural } from '../../numbers.js';
import { printable } from '../../terminal-text.js';
import { type AttemptBar, type BeadRow, type Night, type Pause, totalsOf } from '../core/night.js';
import { ATTEMPT_END_OUTCOMES, type AttemptEndOutcome } from '../core/run-events.js';
import { clock } from './log.js';

/** An attempt's look on the page: its outcome, or `running` while it has none (a report of a night still going). */
export type BarOutcome = AttemptEndOutcome | 'running';

/** What each outcome is called on the page, and its colour. */
export const OUTCOME_LOOK: Record<BarOutcome, { label: string; colour: string }> = {
  landed: { label: 'landed', colour: '#2f9e44' },
  verification_failed: { label: 'verification failed', colour: '#e03131' },
  failed: { label: 'failed', colour: '#a61e4d' },
  drift: { label: 'drift', colour: '#e67700' },
  infrastructure: { label: 'infrastructure', colour: '#5f3dc4' },
  limit: { label: 'limit', colour: '#f59f00' },
  stopped: { label: 'stopped', colour: '#868e96' },
  running: { label: 'in flight', colour: '#1c7ed6' },
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text from the log as HTML text or an attribute value: escaped, its control characters shown as `\uXXXX`. */
export function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The page loads nothing: no script, style, image, font or frame from anywhere, and sends nothing. */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'";

/** The time axis: the night's first and last moment, and where a moment falls on the chart. */
interface Frame {
  start: number;
  end: number;
  x(at: number): number;
}

/** Chart geometry, in the SVG's own units (it scales to the page's width). */
const CHART = { left: 64, width: 1100, lane: 22, bar: 16, axis: 22, flightHeight: 90 } as const;

function frameOf(night: Night, now: number): Frame {
  const firstClaim = night.attempts.length > 0 ? night.attempts[0]!.start : undefined;
  const start = night.startedAt ?? firstClaim ?? now;
  const end = Math.max(start + 1000, night.stop?.at ?? Math.max(now, night.lastEventAt ?? start));
  const scale = CHART.width / (end - start);
  return { start, end, x: (at) => CHART.left + (Math.min(Math.max(at, start), end) - start) * scale };
}

const outcomeOf = (bar: AttemptBar): BarOutcome => bar.outcome ?? 'running';
const utc = (at: number) => new Date(at).toISOString().slice(11, 19);
// thousands apart with commas, as en-US writes them (toLocaleString is ten times slower over thousands of cells)
const tokens = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const dollars = (usd: number) => `$${usd.toFixed(usd !== 0 && usd < 1 ? 4 : 2)}`;
const num = (n: number) => (Math.round(n * 10) / 10).toString();

/** The whole page. `now` ends the bars of a night that has not stopped (a report drawn during the run). */
export function reportHtml(night: Night, now: number): string {
  const frame = frameOf(night, now);
  const byBead = attemptsByBead(night.attempts);
  const title = `helix report — ${night.run || 'a run'}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    summaryHtml(night, frame),
    night.legacy ? `<p class="note">${LEGACY_NOTE}</p>` : '',
    legendHtml(night, frame),
    lanesSvg(night, frame),
    inFlightSvg(night, frame),
    blockersHtml(night),
    beadTableHtml(night, byBead),
    `<script>${SCRIPT}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}

/** What a log written before `jobs` and `attempt_end` (docs/events.md) lets the page draw. */
const LEGACY_NOTE =
  'This log was written before helix recorded slots and attempt ends: every attempt is drawn in one lane, from its claim to its close (landed), backoff or park (failed) or limit, with its builds’ spend; no phases, no log lines, and verification output only for the beads the run skipped.';

function attemptsByBead(bars: AttemptBar[]): Map<string, AttemptBar[]> {
  const map = new Map<string, AttemptBar[]>();
  for (const bar of bars) {
    const list = map.get(bar.bead);
    if (list) list.push(bar);
    else map.set(bar.bead, [bar]);
  }
  return map;
}

function summaryHtml(night: Night, frame: Frame): string {
  const totals = totalsOf(night, frame.end);
  const paused = (kind: Pause['kind']) => night.pauses.filter((p) => p.kind === kind);
  const pausedFor = (pauses: Pause[]) => clock(pauses.reduce((ms, p) => ms + (Math.min(p.end ?? frame.end, frame.end) - p.start), 0));
  // the stop's spend is the whole run's (the check and the actions too); the builds' is the attempts'
  const spent = night.stop?.spent ?? { tokens: night.tokens, cost_usd: night.costUsd, unknown_cost_calls: night.unknownCostCalls };
  const unknown = spent.unknown_cost_calls > 0 ? ` (+${plural(spent.unknown_cost_calls, 'call')} of unknown cost)` : '';
  const builds = spent.tokens !== night.tokens ? ` (the builds: ${tokens(night.tokens)} tokens · ${dollars(night.costUsd)})` : '';
  const stop = night.stop ? `${escapeHtml(night.stop.reason)} (exit ${night.stop.exit})${night.stop.detail ? ` — ${escapeHtml(night.stop.detail)}` : ''}` : 'still running (drawn up to the last event)';
  const limits = paused('limit');
  const waits = paused('infrastructure');
  const items: Array<[string, string]> = [
    ['project', `<code>${escapeHtml(night.root || '?')}</code>`],
    ['started', `${new Date(frame.start).toISOString().replace('T', ' ').slice(0, 19)} UTC`],
    ['ran for', clock(frame.end - frame.start)],
    ['ended', stop],
    ['slots', String(night.jobs)],
    ['attempts', String(night.attempts.length)],
    ['beads', `${totals.closed} closed · ${totals.failed} failed · ${totals.parked} parked · ${totals.left} left${totals.inFlight ? ` · ${totals.inFlight} in flight` : ''}`],
    ['spent', `${tokens(spent.tokens)} tokens · ${dollars(spent.cost_usd)}${unknown}${builds}`],
    ['limit pauses', limits.length ? `${limits.length}, ${pausedFor(limits)} in all` : 'none'],
    ['infrastructure waits', waits.length ? `${waits.length}, ${pausedFor(waits)} in all` : 'none'],
  ];
  return `<dl class="summary">${items.map(([k, v]) => `<div><dt>${k}</dt><dd>${v}</dd></div>`).join('')}</dl>`;
}

function legendHtml(night: Night, frame: Frame): string {
  const counts = new Map<BarOutcome, number>();
  for (const bar of night.attempts) counts.set(outcomeOf(bar), (counts.get(outcomeOf(bar)) ?? 0) + 1);
  const outcomes = ([...ATTEMPT_END_OUTCOMES, 'running'] as BarOutcome[]).filter((o) => counts.has(o) || o === 'landed' || o === 'verification_failed');
  const swatch = (cls: string, label: string) => `<span class="key"><i class="${cls}"></i>${label}</span>`;
  const keys = outcomes.map((o) => `<button type="button" class="key" data-filter="${o}"><i class="o-${o}"></i>${OUTCOME_LOOK[o].label} (${counts.get(o) ?? 0})</button>`);
  const span = `0 → ${clock(frame.end - frame.start)}`;
  return `<div class="legend">${keys.join('')}${swatch('p-limit', 'limit pause')}${swatch('p-infrastructure', 'infrastructure wait')}<span class="span">${span}</span></div>`;
}

/** Ticks every 1 s … 6 h: at most about ten across the night. */
function tickStep(spanMs: number): number {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600].map((s) => s * 1000);
  return steps.find((step) => spanMs / step <= 10) ?? 43_200_000;
}

function axisSvg(frame: Frame, top: number, height: number): string {
  const step = tickStep(frame.end - frame.start);
  const parts: string[] = [];
  for (let offset = 0; frame.start + offset <= frame.end; offset += step) {
    const x = num(frame.x(frame.start + offset));
    parts.push(`<line class="grid" x1="${x}" x2="${x}" y1="${top}" y2="${top + height}"/><text class="tick" x="${x}" y="${top + height + 14}">${clock(offset)}</text>`);
  }
  return parts.join('');
}

function pausesSvg(night: Night, frame: Frame, top: number, height: number): string {
  return night.pauses
    .map((p) => {
      const x = frame.x(p.start);
      const width = Math.max(1, frame.x(p.end ?? frame.end) - x);
      const label = `${p.kind === 'limit' ? 'limit pause' : 'infrastructure wait'} ${utc(p.start)}–${p.end ? utc(p.end) : '…'} UTC: ${p.detail}`;
      return `<rect class="pause p-${p.kind}" x="${num(x)}" y="${top}" width="${num(width)}" height="${height}"><title>${escapeHtml(label)}</title></rect>`;
    })
    .join('');
}

/** One lane per slot, each attempt a bar: the `data-attempt` elements a reader (or a test) counts. */
function lanesSvg(night: Night, frame: Frame): string {
  const slots = Math.max(night.jobs, ...night.attempts.map((bar) => bar.slot));
  const lanesHeight = slots * CHART.lane;
  const height = lanesHeight + CHART.axis;
  const lanes: string[] = [];
  for (let slot = 1; slot <= slots; slot++) {
    const y = (slot - 1) * CHART.lane;
    lanes.push(`<rect class="lane${slot % 2 ? '' : ' odd'}" x="${CHART.left}" y="${y}" width="${CHART.width}" height="${CHART.lane}"/><text class="slot" x="4" y="${y + 15}">slot ${slot}</text>`);
  }
  const bars = night.attempts.map((bar) => barSvg(bar, frame));
  return [
    `<h2>The night, slot by slot</h2><div class="chart"><svg class="lanes" viewBox="0 0 ${CHART.left + CHART.width + 8} ${height}" role="img" aria-label="attempts by slot over time">`,
    DEFS,
    lanes.join(''),
    pausesSvg(night, frame, 0, lanesHeight),
    axisSvg(frame, 0, lanesHeight),
    bars.join('\n'),
    '</svg></div>',
  ].join('');
}

function barSvg(bar: AttemptBar, frame: Frame): string {
  const outcome = outcomeOf(bar);
  const end = bar.end ?? frame.end;
  const x = frame.x(bar.start);
  const width = Math.max(1.5, frame.x(end) - x);
  const y = (bar.slot - 1) * CHART.lane + (CHART.lane - CHART.bar) / 2;
  const phases = bar.phases.map((p) => `${p.phase} +${clock(p.at - bar.start)}`).join(', ');
  const spend = `${tokens(bar.tokens)} tokens${bar.costUsd === null ? '' : `, ${dollars(bar.costUsd)}`}`;
  const tip = [`${bar.bead} attempt ${bar.attempt}: ${OUTCOME_LOOK[outcome].label}, ${clock(end - bar.start)} (${utc(bar.start)}–${utc(end)} UTC)`, bar.reason ?? '', `phases: ${phases}`, spend].filter(Boolean).join('\n');
  // the bead's id on the bar when it fits (about 6.5 units a character)
  const label = width > 8 * 6.5 ? `<text class="bar-label" x="${num(x + 3)}" y="${y + 12}">${escapeHtml(bar.bead.slice(0, Math.floor(width / 6.5)))}</text>` : '';
  return `<g class="attempt o-${outcome}" data-bead="${escapeHtml(bar.bead)}" data-attempt="${bar.attempt}" data-outcome="${outcome}" data-slot="${bar.slot}" tabindex="0"><rect x="${num(x)}" y="${y}" width="${num(width)}" height="${CHART.bar}" rx="2"/>${label}<title>${escapeHtml(tip)}</title></g>`;
}

/** How many attempts were in flight, moment by moment: a step line over the same time axis. */
export function inFlightSteps(night: Night, end: number): Array<{ at: number; count: number }> {
  const edges = night.attempts.flatMap((bar) => [
    { at: bar.start, delta: 1 },
    { at: bar.end ?? end, delta: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const steps: Array<{ at: number; count: number }> = [];
  let count = 0;
  for (const edge of edges) {
    count += edge.delta;
    if (steps.length > 0 && steps[steps.length - 1]!.at === edge.at) steps[steps.length - 1]!.count = count;
    else steps.push({ at: edge.at, count });
  }
  return steps;
}

function inFlightSvg(night: Night, frame: Frame): string {
  const steps = inFlightSteps(night, frame.end);
  const most = Math.max(1, night.jobs, ...steps.map((s) => s.count));
  const h = CHART.flightHeight;
  const y = (count: number) => num(h - (count / most) * (h - 6));
  let path = `M${num(frame.x(frame.start))} ${y(0)}`;
  for (const step of steps) path += ` H${num(frame.x(step.at))} V${y(step.count)}`;
  path += ` H${num(frame.x(frame.end))} V${y(0)} Z`;
  const scale = [0, most].map((c) => `<text class="slot" x="4" y="${Number(y(c)) + 4}">${c}</text>`).join('');
  return [
    `<h2>In flight</h2><div class="chart"><svg class="flight" viewBox="0 0 ${CHART.left + CHART.width + 8} ${h + CHART.axis}" role="img" aria-label="attempts in flight over time">`,
    DEFS,
    `<rect class="lane" x="${CHART.left}" y="0" width="${CHART.width}" height="${h}"/>`,
    pausesSvg(night, frame, 0, h),
    axisSvg(frame, 0, h),
    `<path class="in-flight" d="${path}"/>${scale}`,
    '</svg></div>',
  ].join('');
}

function blockersHtml(night: Night): string {
  if (night.blockers.length === 0) return '';
  const items = night.blockers.map((b) => {
    const last = b.last_failure ? `<div>last failure: ${escapeHtml(b.last_failure)}</div>` : '';
    return `<li><a href="#bead-${escapeHtml(b.id)}"><code>${escapeHtml(b.id)}</code></a> — ${escapeHtml(b.reason)}<div class="title">${escapeHtml(b.title || '?')}</div>${last}${outputHtml(b.output)}</li>`;
  });
  return `<h2>Blockers (${plural(night.blockers.length, 'bead')})</h2><ul class="blockers">${items.join('')}</ul>`;
}

function outputHtml(lines: string[]): string {
  if (lines.length === 0) return '';
  return `<details><summary>what verification printed last (${plural(lines.length, 'line')})</summary><pre>${escapeHtml(lines.join('\n'))}</pre></details>`;
}

function beadTableHtml(night: Night, byBead: Map<string, AttemptBar[]>): string {
  const rows = [...night.beads.values()].filter((row) => row.attempts > 0 || byBead.has(row.id)).map((row) => beadRowHtml(row, byBead.get(row.id) ?? []));
  const head = ['bead', 'attempts', 'outcome', 'reason', 'tokens', 'cost', 'time', `lines of <code>${escapeHtml(night.run)}.log</code>`, 'memories'].map((h) => `<th>${h}</th>`).join('');
  return `<h2>Beads (${night.beads.size})</h2><table class="beads"><thead><tr>${head}</tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

function beadRowHtml(row: BeadRow, bars: AttemptBar[]): string {
  const chips = bars.map((bar) => `<span class="chip o-${outcomeOf(bar)}" title="attempt ${bar.attempt}: ${OUTCOME_LOOK[outcomeOf(bar)].label}${bar.end ? `, ${clock(bar.end - bar.start)}` : ''}">${bar.attempt}</span>`).join('');
  const last = bars[bars.length - 1];
  const outcome = last ? outcomeOf(last) : undefined;
  const state = row.parkedUntil ? ` · parked until ${escapeHtml(row.parkedUntil)}` : row.gaveUp && row.outcome !== 'landed' ? ' · given up' : '';
  const log = row.logs.map((l) => `L${l.first}–L${l.last}`).join(', ');
  const cells = [
    `<code>${escapeHtml(row.id)}</code><div class="title">${escapeHtml(row.title || '?')}</div>`,
    `${row.attempts} ${chips}`,
    outcome ? `<span class="tag o-${outcome}">${OUTCOME_LOOK[outcome].label}</span>${state}` : state,
    `${row.reason ? escapeHtml(row.reason) : ''}${outputHtml(row.output)}`,
    tokens(row.tokens),
    dollars(row.costUsd),
    clock(row.seconds * 1000),
    log,
    memoriesHtml(row),
  ];
  return `<tr id="bead-${escapeHtml(row.id)}" data-row="${escapeHtml(row.id)}">${cells.map((c) => `<td>${c}</td>`).join('')}</tr>`;
}

/** Which memories the bead was given, and what each earned when its attempt was judged. */
function memoriesHtml(row: BeadRow): string {
  const { injected, helped, failed, leftAlone } = row.memories;
  if (injected.length === 0 && helped.length + failed.length + leftAlone.length === 0) return '';
  const list = (label: string, names: string[]) => (names.length ? `<div><b>${label}</b> ${names.map((n) => `<code>${escapeHtml(n)}</code>`).join(' ')}</div>` : '');
  return [list('given', injected), list('helped', helped), list('failed', failed), list('left alone', leftAlone)].join('');
}

/** Hatching for the pauses: a pattern inside the SVG itself (a fragment reference, nothing loaded). */
const DEFS =
  '<defs><pattern id="hatch-limit" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff3bf"/><line x1="0" y1="0" x2="0" y2="6" stroke="#f59f00" stroke-width="2"/></pattern><pattern id="hatch-infrastructure" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#e5dbff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#7950f2" stroke-width="2"/></pattern></defs>';

const STYLE = [
  'body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#212529;background:#fff}',
  'h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:20px 0 6px}code{font:12px ui-monospace,monospace}',
  '.summary{display:flex;flex-wrap:wrap;gap:4px 24px;margin:0}.summary div{display:flex;gap:6px}.summary dt{color:#868e96}.summary dd{margin:0}',
  '.note{background:#fff9db;border:1px solid #ffe066;padding:6px 10px;max-width:1100px}',
  '.legend{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;margin:10px 0}.key{display:inline-flex;align-items:center;gap:5px;font:inherit;background:none;border:1px solid transparent;padding:1px 4px;cursor:pointer}',
  '.key.off{opacity:.35}.key i{display:inline-block;width:14px;height:12px;border-radius:2px}.legend .span{color:#868e96}',
  '.chart svg{width:100%;height:auto;max-width:1400px;display:block}.lane{fill:#f8f9fa}.lane.odd{fill:#f1f3f5}.grid{stroke:#dee2e6;stroke-width:1}',
  '.tick,.slot{font:11px system-ui,sans-serif;fill:#495057}.tick{text-anchor:middle}.bar-label{font:10px ui-monospace,monospace;fill:#fff;pointer-events:none}',
  '.attempt{cursor:pointer}.attempt:hover rect,.attempt:focus rect,.attempt.lit rect{stroke:#212529;stroke-width:1.5}.hide{display:none}',
  '.pause{opacity:.8}.p-limit{fill:url(#hatch-limit);background:repeating-linear-gradient(45deg,#fff3bf 0 3px,#f59f00 3px 5px)}.p-infrastructure{fill:url(#hatch-infrastructure);background:repeating-linear-gradient(45deg,#e5dbff 0 3px,#7950f2 3px 5px)}',
  '.in-flight{fill:#a5d8ff;stroke:#1c7ed6;stroke-width:1.5}',
  ...(Object.keys(OUTCOME_LOOK) as BarOutcome[]).map((o) => `.o-${o} rect,rect.o-${o}{fill:${OUTCOME_LOOK[o].colour}}i.o-${o},.chip.o-${o},.tag.o-${o}{background:${OUTCOME_LOOK[o].colour}}`),
  '.chip,.tag{display:inline-block;color:#fff;border-radius:3px;padding:0 5px;margin:1px;font-size:12px}',
  'table.beads{border-collapse:collapse;width:100%;max-width:1400px}.beads th,.beads td{border-bottom:1px solid #dee2e6;padding:4px 6px;text-align:left;vertical-align:top}',
  '.beads td:first-child{min-width:14em}.beads td:nth-child(3){min-width:9em}.beads td:nth-child(4){min-width:16em}.beads td:nth-child(5),.beads td:nth-child(6),.beads td:nth-child(7){text-align:right;white-space:nowrap}.beads tr.lit{background:#fff3bf}.title{color:#495057}',
  'pre{background:#f1f3f5;padding:6px;max-height:260px;overflow:auto;white-space:pre-wrap;font:12px ui-monospace,monospace}.blockers li{margin-bottom:8px}',
].join('\n');

/** Click a bar: its bead's row. Point at a row: its bars. Click an outcome in the legend: hide or show its bars. Reads only the page. */
const SCRIPT = `(function(){
var lit=[];function light(els){lit.forEach(function(e){e.classList.remove('lit')});lit=Array.prototype.slice.call(els);lit.forEach(function(e){e.classList.add('lit')})}
function bars(id){return document.querySelectorAll('[data-attempt][data-bead="'+CSS.escape(id)+'"]')}
document.addEventListener('click',function(e){var t=e.target;if(!(t instanceof Element))return;var bar=t.closest('[data-attempt]');
if(bar){var row=document.getElementById('bead-'+bar.getAttribute('data-bead'));if(row){light([row].concat(Array.prototype.slice.call(bars(bar.getAttribute('data-bead')))));row.scrollIntoView({block:'center'})}return}
var key=t.closest('[data-filter]');if(key){var o=key.getAttribute('data-filter');var off=key.classList.toggle('off');document.querySelectorAll('[data-attempt][data-outcome="'+o+'"]').forEach(function(g){g.classList.toggle('hide',off)})}});
document.addEventListener('mouseover',function(e){var t=e.target;if(!(t instanceof Element))return;var row=t.closest('tr[data-row]');if(row)light(bars(row.getAttribute('data-row')))});
})();`;
