// Node module hooks for the simulation's ablations (see ablations.mjs for what each switches off).
// `resolve` sends every import of the one target module to a wrapper; the wrapper imports the
// built module itself (`?sim-original`), re-exports all of it, and replaces one export.

/** The ablated module (path under the helix folder) and its wrapper's source. */
const WRAPPERS = {
  ranking: {
    target: '/dist/memory/constants.js',
    source: (original) => `
import * as built from ${JSON.stringify(original)};
export * from ${JSON.stringify(original)};
if (!built.SCORE_WEIGHTS || typeof built.SCORE_WEIGHTS.effectiveness !== 'number') {
  throw new Error('sim ablation "ranking": dist/memory/constants.js no longer exports SCORE_WEIGHTS.effectiveness');
}
export const SCORE_WEIGHTS = Object.freeze({ ...built.SCORE_WEIGHTS, effectiveness: 0 });
`,
  },
  gating: {
    target: '/dist/supervisor/shell/memory-port.js',
    source: (original) => `
import * as built from ${JSON.stringify(original)};
export * from ${JSON.stringify(original)};
if (typeof built.openMemoryPort !== 'function') throw new Error('sim ablation "gating": memory-port.js no longer exports openMemoryPort');
/** The agent's own verdict: the status of the execute-bead result it printed last. */
function agentSaysDone(output) {
  const statuses = [...String(output).matchAll(/"status"\\s*:\\s*"([a-z_]+)"/g)].map((m) => m[1]);
  return statuses.at(-1) === 'success';
}
export async function openMemoryPort(root, env, say) {
  const port = await built.openMemoryPort(root, env, say);
  if (!port) return port;
  return new Proxy(port, {
    get(target, key) {
      if (key === 'feedback') return (input) => target.feedback({ ...input, verified: agentSaysDone(input.output), refuted: false });
      const value = target[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
`,
  },
  learn: {
    target: '/dist/supervisor/shell/memory-port.js',
    source: (original) => `
import * as built from ${JSON.stringify(original)};
export * from ${JSON.stringify(original)};
if (typeof built.openMemoryPort !== 'function') throw new Error('sim ablation "learn": memory-port.js no longer exports openMemoryPort');
const LEARNED = /^[\\s>*_\`-]*(?:LEARNED|INSIGHT)\\b/;
export async function openMemoryPort(root, env, say) {
  const port = await built.openMemoryPort(root, env, say);
  if (!port) return port;
  return new Proxy(port, {
    get(target, key) {
      if (key === 'feedback') {
        return (input) => target.feedback({
          ...input,
          failureDetail: undefined,
          output: String(input.output).split('\\n').filter((line) => !LEARNED.test(line)).join('\\n'),
        });
      }
      const value = target[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
`,
  },
  decay: {
    target: '/dist/memory/index.js',
    source: (original) => `
import * as built from ${JSON.stringify(original)};
import { verifyVerdicts } from './feedback.js';
export * from ${JSON.stringify(original)};
if (typeof built.openMemoryStore !== 'function' || typeof verifyVerdicts !== 'function' || typeof built.VERIFY_FEEDBACK_STEP !== 'number') {
  throw new Error('sim ablation "decay": dist/memory no longer exports openMemoryStore, verifyVerdicts and VERIFY_FEEDBACK_STEP');
}
export function openMemoryStore(options) {
  const store = built.openMemoryStore(options);
  return new Proxy(store, {
    get(target, key) {
      if (key === 'feedbackVerify') {
        return (input) => {
          const { helped } = verifyVerdicts(input);
          if (helped.length > 0) target.feedback(helped, built.VERIFY_FEEDBACK_STEP);
          return { task_id: input.taskId, verify_passed: input.verifyPassed, helped, unhelpful: [] };
        };
      }
      const value = target[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
`,
  },
  credit: {
    target: '/dist/memory/index.js',
    source: (original) => `
import * as built from ${JSON.stringify(original)};
export * from ${JSON.stringify(original)};
if (typeof built.openMemoryStore !== 'function') throw new Error('sim ablation "credit": dist/memory/index.js no longer exports openMemoryStore');
export function openMemoryStore(options) {
  const store = built.openMemoryStore(options);
  return new Proxy(store, {
    get(target, key) {
      if (key === 'feedbackVerify') return ({ task, ...input }) => target.feedbackVerify(input);
      const value = target[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
`,
  },
};

let wrapper;

export async function initialize(data) {
  wrapper = WRAPPERS[data?.ablate];
  if (!wrapper) throw new Error(`sim ablation: unknown ablation ${data?.ablate}`);
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const url = new URL(resolved.url);
  if (url.protocol === 'file:' && url.search === '' && url.pathname.endsWith(wrapper.target)) {
    url.search = '?sim-ablation';
    return { ...resolved, url: url.href, shortCircuit: true };
  }
  return resolved;
}

export async function load(url, context, next) {
  const parsed = new URL(url);
  if (parsed.search === '?sim-ablation') {
    parsed.search = '?sim-original';
    return { format: 'module', source: wrapper.source(parsed.href), shortCircuit: true };
  }
  return next(url, context);
}
