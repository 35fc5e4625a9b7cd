// Chooses the embedder once per process. HELIX_EMBEDDER=lexical|use|minilm forces a tier (tests
// and the edit hook pin `lexical`: it starts in no time). Otherwise: MiniLM when HELIX_MODEL_PATH
// names a folder or transformers.js has it cached, else the offline default. Any tier that fails
// to load falls back to lexical with one warning — recall must work with no model at all.
import { HelixError } from '../../errors.js';
import type { Embedder } from './embedder.js';
import { lexicalEmbedder } from './lexical.js';

export const EMBEDDER_CHOICES = ['lexical', 'use', 'minilm'] as const;
export type EmbedderChoice = (typeof EMBEDDER_CHOICES)[number];

/**
 * The tier used when nothing is configured. Lexical, not USE-lite: on the hard eval set USE-lite
 * adds little to BM25 and path matching (Recall@5 0.919 both, MRR 0.908 vs 0.905), and its
 * import, load and first inference (0.3–1 s) alone exceed the 150 ms whole-process recall budget
 * (measured numbers in docs/memory.md).
 */
export const OFFLINE_DEFAULT: EmbedderChoice = 'lexical';

export type Warn = (message: string) => void;

export function embedderChoice(env: NodeJS.ProcessEnv): EmbedderChoice {
  const forced = env.HELIX_EMBEDDER?.trim();
  if (forced) {
    if (!(EMBEDDER_CHOICES as readonly string[]).includes(forced)) {
      throw new HelixError('validation', `HELIX_EMBEDDER must be one of ${EMBEDDER_CHOICES.join(', ')} (got ${forced})`);
    }
    return forced as EmbedderChoice;
  }
  return env.HELIX_MODEL_PATH ? 'minilm' : OFFLINE_DEFAULT;
}

export async function selectEmbedder(env: NodeJS.ProcessEnv, warn: Warn): Promise<Embedder> {
  const choice = embedderChoice(env);
  try {
    if (choice === 'use') {
      const { loadUseLiteEmbedder } = await import('./use-lite.js');
      return await loadUseLiteEmbedder();
    }
    const { cachedMiniLm, loadTransformersEmbedder, MINILM_HUB_NAME } = await import('./transformers.js');
    if (choice === 'minilm') {
      if (env.HELIX_MODEL_PATH) return await loadTransformersEmbedder(env.HELIX_MODEL_PATH);
      const cache = cachedMiniLm();
      if (!cache) throw new Error('HELIX_MODEL_PATH is not set and no cached all-MiniLM-L6-v2 was found');
      return await loadTransformersEmbedder(MINILM_HUB_NAME, cache);
    }
    // Unforced lexical default: a MiniLM already in transformers.js's cache still wins.
    if (!env.HELIX_EMBEDDER) {
      const cache = cachedMiniLm();
      if (cache) return await loadTransformersEmbedder(MINILM_HUB_NAME, cache);
    }
  } catch (error) {
    warn(`helix: memory: ${choice} embedder unavailable (${(error as Error).message.split('\n')[0]}); using the lexical fallback`);
  }
  return lexicalEmbedder;
}
