// `helix report`'s page (text/report-html.ts) read as markup: one element per attempt with its bead,
// attempt and outcome, nothing that would load from anywhere, every text from the log escaped, the
// pauses shaded, a row per bead with its spend, output, log lines and memories. The page in a real
// browser, offline: scripts/test-report-browser.mjs (npm run test:report-browser).
import { describe, expect, it } from 'vitest';
import { nightOf } from '../../../src/supervisor/core/night.js';
import { escapeHtml, inFlightSteps, reportHtml } from '../../../src/supervisor/text/report-html.js';
import { HOSTILE_OUTPUT, HOSTILE_REASON, HOSTILE_TITLE, T0, log, sampleEvents, sampleNight } from './report-night.js';

const END = T0 + 483_000;
/** The opening tags of the attempt elements: every tag that carries data-attempt. */
const attemptTags = (html: string) => [...html.matchAll(/<[a-z]+\b[^>]*\bdata-attempt="[^"]*"[^>]*>/g)].map((m) => m[0]);
const attr = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];

describe('the report page', () => {
  it('has one element per attempt of the log, each naming its bead, attempt and outcome', () => {
    const html = reportHtml(sampleNight(), END);
    const claims = sampleEvents().filter((e) => e.type === 'claim').length;
    const tags = attemptTags(html);
    expect(tags).toHaveLength(claims);
    expect(tags.map((t) => [attr(t, 'data-bead'), attr(t, 'data-attempt'), attr(t, 'data-outcome'), attr(t, 'data-slot')])).toEqual([
      ['hx-a', '1', 'landed', '1'],
      ['hx-b', '1', 'verification_failed', '2'],
      ['hx-c', '1', 'limit', '1'],
      ['hx-b', '2', 'landed', '2'],
      ['hx-c', '2', 'failed', '1'],
    ]);
  });

  it("loads nothing from anywhere: no address, no src or outside href, no tag that fetches, no stylesheet import, no url() but the page's own patterns; a policy that allows none", () => {
    const html = reportHtml(sampleNight(), END);
    expect(html).not.toMatch(/https?:\/\//i);
    // the markup itself (text from the log is escaped, so every `<` opens a tag of the page's own)
    const tags = html.match(/<[a-zA-Z][^>]*>/g) ?? [];
    expect(tags.filter((tag) => /\s(src|srcset|data|poster|action|formaction|background)\s*=/i.test(tag))).toEqual([]);
    expect(tags.filter((tag) => /\shref\s*=\s*"(?!#)/i.test(tag))).toEqual([]);
    expect(tags.filter((tag) => /^<(link|img|iframe|object|embed|audio|video|source|image|use|form|base)\b/i.test(tag))).toEqual([]);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/url\((?!#)/i);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`);
    // the script is the page's own, inline
    expect(html).toMatch(/<script>\(function\(\)\{/);
  });

  it('escapes every text from the log: a title, a reason and an output line that try to open tags stay text', () => {
    const html = reportHtml(sampleNight(), END);
    for (const hostile of [HOSTILE_TITLE, HOSTILE_REASON, HOSTILE_OUTPUT]) {
      expect(html).not.toContain(hostile);
      expect(html).toContain(escapeHtml(hostile));
    }
    expect(html).not.toMatch(/<(img|iframe)\b/i);
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(escapeHtml('a<b>&"c\'\u001b[2J')).toBe('a&lt;b&gt;&amp;&quot;c&#39;\\u001b[2J');
  });

  it('shades the limit pause and the infrastructure wait on the lanes and under the in-flight line', () => {
    const html = reportHtml(sampleNight(), END);
    expect(html.match(/<rect class="pause p-limit"/g)).toHaveLength(2);
    expect(html.match(/<rect class="pause p-infrastructure"/g)).toHaveLength(2);
    expect(html).toContain('limit pause 22:01:40–22:06:40 UTC: 5-hour limit reached');
    expect(html).toContain('infrastructure wait 22:07:00–22:07:30 UTC: DDx: index.lock exists');
  });

  it("gives each bead a row: attempts, outcome, reason, what verification printed, tokens, cost, time, log lines and its memories' credit", () => {
    const html = reportHtml(sampleNight(), END);
    const row = (id: string) => new RegExp(`<tr id="bead-${id}"[^]*?</tr>`).exec(html)?.[0] ?? '';
    expect(row('hx-b')).toContain('>2 <span class="chip o-verification_failed"');
    expect(row('hx-b')).toContain('landed');
    expect(row('hx-b')).toContain('<td>L21–L30, L40–L52</td>');
    expect(html).toContain('<th>lines of <code>helix-20261201-220000.log</code></th>');
    expect(row('hx-b')).toContain('3,000'); // 1000 + 2000 tokens
    expect(row('hx-b')).toContain('$0.0300');
    expect(row('hx-b')).toContain('2m47s'); // 88 s + 79 s
    expect(row('hx-b')).toContain('not ok 2 - the answer');
    expect(row('hx-a')).toMatch(/<b>given<\/b> <code>mem-strict-mode<\/code> <code>mem-unrelated<\/code>/);
    expect(row('hx-a')).toMatch(/<b>helped<\/b> <code>mem-strict-mode<\/code>/);
    expect(row('hx-a')).toMatch(/<b>left alone<\/b> <code>mem-unrelated<\/code>/);
    expect(row('hx-c')).toContain('given up');
  });

  it('says the totals, how the run ended, and its blockers', () => {
    const html = reportHtml(sampleNight(), END);
    expect(html).toContain('<dt>beads</dt><dd>2 closed · 1 failed · 0 parked · 0 left</dd>');
    expect(html).toContain('<dt>attempts</dt><dd>5</dd>');
    expect(html).toContain('<dt>ended</dt><dd>completed (exit 0) — helix: stopping after check returned STOP</dd>');
    expect(html).toContain('<dt>limit pauses</dt><dd>1, 5m00s in all</dd>');
    // the stop's spend is the whole run's; the builds' beside it
    expect(html).toContain('<dt>spent</dt><dd>6,000 tokens · $0.0600 (the builds: 1,000 tokens · $0.0100)</dd>');
    expect(html).toContain('<h2>Blockers (1 bead)</h2>');
    expect(html).toContain('<code>hx-c</code></a> — failed 2 times');
  });

  it('draws a night still running up to now, its attempt in flight', () => {
    const events = sampleEvents().slice(0, 4);
    const html = reportHtml(nightOf(events), T0 + 30_000);
    expect(attemptTags(html).map((t) => attr(t, 'data-outcome'))).toEqual(['running', 'running']);
    expect(html).toContain('still running');
  });

  it('says what a log written before slots and attempt ends lets it draw', () => {
    const legacy = log(
      [0, { type: 'run_start', pid: 1, ready: 1, agent: 'codex', root: '/p' }],
      [1, { type: 'claim', bead: 'hx-a', attempt: 1 }],
      [20, { type: 'close', bead: 'hx-a', how: 'closed' }],
      [21, { type: 'stop', reason: 'completed', exit: 0, detail: '', spent: { cost_usd: 0, tokens: 0, unknown_cost_calls: 0 } }],
    );
    const html = reportHtml(nightOf(legacy), T0 + 21_000);
    expect(html).toContain('This log was written before helix recorded slots and attempt ends');
    expect(attemptTags(html).map((t) => attr(t, 'data-outcome'))).toEqual(['landed']);
  });
});

describe('the in-flight line', () => {
  it('steps up at each claim and down at each end', () => {
    const steps = inFlightSteps(sampleNight(), END).map((s) => [(s.at - T0) / 1000, s.count]);
    expect(steps).toEqual([
      [1, 1],
      [2, 2],
      [60, 1],
      [90, 0],
      [91, 1],
      [100, 0],
      [401, 1],
      [402, 2],
      [420, 1],
      [480, 0],
    ]);
  });
});
