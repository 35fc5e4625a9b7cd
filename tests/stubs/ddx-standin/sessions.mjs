// What the DDx stand-ins record of each agent session, as the real binaries do (measured on
// 93be5c8cb2 and ae663ca012 running the real claude CLI; tests/agents/fixtures/ddx-records):
//   .ddx/agent-logs/sessions/sessions-YYYY-MM.jsonl — one line a session: id, beadID (absent on a
//     triage and on `ddx run`), startedAt, tokens, cost, outcome, exitCode, detail, bundlePath (a
//     build), nativeLogRef (current: the session log);
//   current: the session log's `session.end` event carries the agent's final output (for a build
//     DDx's copy lives under <bundle>/embedded/, the original in its clone, gone afterwards);
//   v0.6.1: a build's output is the `text_delta` events of <bundle>/embedded/agent-<harness>-<n>.jsonl;
//   <bundle>/result.json: the attempt's result.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let counter = 0;
const sessionNumber = () => `${Date.now()}${process.pid}${counter++}`;

/**
 * Records one session. `session`: { prefix ('as' lifecycle, 'eb' build), beadId, tokens, cost,
 * failed, output, bundle (a build's execution folder, relative), harness }.
 */
export function recordSession(root, version, session) {
  const n = sessionNumber();
  const id = `${session.prefix}-${n.slice(-8)}`;
  const now = new Date();
  const row = {
    id,
    ...(session.beadId ? { beadID: session.beadId } : {}),
    harness: session.harness ?? 'claude',
    startedAt: now.toISOString(),
    endedAt: now.toISOString(),
    ...(session.failed ? {} : { cost: session.cost, costPresent: true, tokens: session.tokens }),
    outcome: session.failed ? 'failure' : 'success',
    exitCode: session.failed ? 1 : 0,
    ...(session.failed ? { detail: 'exit status 1' } : {}),
    ...(session.bundle ? { bundlePath: session.bundle } : {}),
  };
  if (version === 'current') {
    const name = `svc-${n}.jsonl`;
    const end = `${JSON.stringify({ session_id: `svc-${n}`, type: 'session.end', data: { status: session.failed ? 'error' : 'success', output: session.output ?? '', ...(session.failed ? { error: 'exit status 1' } : {}) } })}\n`;
    if (session.bundle) {
      // the build's log: in DDx's clone (gone after the attempt), copied under the bundle
      mkdirSync(join(root, session.bundle, 'embedded'), { recursive: true });
      writeFileSync(join(root, session.bundle, 'embedded', name), end);
      row.nativeLogRef = join('/nonexistent/ddx-exec-wt', session.bundle, 'embedded', name);
    } else {
      mkdirSync(join(root, '.ddx', 'agent-logs'), { recursive: true });
      writeFileSync(join(root, '.ddx', 'agent-logs', name), end);
      row.nativeLogRef = `.ddx/agent-logs/${name}`;
    }
  } else if (session.bundle) {
    mkdirSync(join(root, session.bundle, 'embedded'), { recursive: true });
    writeFileSync(join(root, session.bundle, 'embedded', `agent-${row.harness}-${n}.jsonl`), `${JSON.stringify({ type: 'text_delta', sequence: 0, data: { text: session.output ?? '' } })}\n`);
  }
  const folder = join(root, '.ddx', 'agent-logs', 'sessions');
  mkdirSync(folder, { recursive: true });
  appendFileSync(join(folder, `sessions-${now.toISOString().slice(0, 7)}.jsonl`), `${JSON.stringify(row)}\n`);
  return id;
}

/** The attempt's result.json in its execution folder. */
export function writeResult(root, bundle, result) {
  mkdirSync(join(root, bundle), { recursive: true });
  writeFileSync(join(root, bundle, 'result.json'), JSON.stringify(result, null, 2));
}
