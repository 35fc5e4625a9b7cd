// Ablations: the simulation runs the real `helix run` with ONE mechanism switched off, to show that
// the claim testing that mechanism then fails. Nothing in src/ knows about this. The sim starts
// helix as `node --import scripts/sim/ablation-register.mjs bin/helix run …`; that registers
// Node module hooks (scripts/sim/ablation-hooks.mjs) which hand helix a different composition
// for one built module, and leave every other module as built:
//
//   ranking  dist/memory/constants.js: the score weight of effectiveness is 0, so ranking (what is
//            injected) uses relevance and recency only. Feedback and the [NN%] tags stay.
//   gating   dist/supervisor/shell/memory-port.js: feedback believes the agent. `verify_passed` is the
//            agent's own claim of success (the execute-bead result's status), not helix's
//            verification, for the helped/failed verdicts, the failure memories and chunking.
//   decay    dist/memory/index.js: a memory never loses standing. The store's verification-gated
//            feedback records only its `helped` half; `failed` never grows, so a fact that stopped
//            working (or never worked) keeps its score.
//   learn    dist/supervisor/shell/memory-port.js: helix learns nothing new from the run: no failure
//            memories, no chunked patterns (LEARNED/INSIGHT lines are dropped). Injection and
//            feedback on what is already stored go on.
//   credit   dist/memory/index.js: feedback-verify is not told the task, so every injected memory
//            the agent did not use counts against it on a pass, about the task or not.
//
// Each wrapper re-exports the built module and replaces one export through the module's own
// public interface; it throws at load time when that export is gone, so a change on main that
// moves it fails loudly instead of silently ablating nothing.
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ABLATIONS = {
  ranking: 'effectiveness has no weight in ranking (injection by relevance and recency only)',
  gating: "feedback believes the agent's own success claim instead of helix's verification",
  decay: "failed never grows: a memory that stops working (or never worked) keeps its score",
  learn: 'helix stores nothing new from the run (no failure memories, no chunked patterns)',
  credit: 'feedback moves every injected memory the agent did not use, about the task or not (the rule before issue #25)',
};

const HERE = resolve(import.meta.dirname);

/** Node arguments that start helix with the given ablations (none: no arguments). */
export function ablationImports(ablate) {
  if (!ablate) return [];
  if (!ABLATIONS[ablate]) throw new Error(`unknown ablation ${ablate}: one of ${Object.keys(ABLATIONS).join(', ')}`);
  const register = pathToFileURL(join(HERE, 'ablation-register.mjs'));
  register.searchParams.set('ablate', ablate);
  return ['--import', register.href];
}
