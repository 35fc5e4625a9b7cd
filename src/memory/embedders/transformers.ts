// The semantic tier: a sentence-transformer (all-MiniLM-L6-v2 by design: 384-d, mean pooled,
// normalised) run by @huggingface/transformers from a local folder. Remote loading is switched
// off: helix never downloads weights behind the user's back. Imported lazily — the library and
// onnxruntime cost ~200 ms to load, which commands without vectors must not pay.
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from './embedder.js';

/** The hub name transformers.js caches the design's model under. */
export const MINILM_HUB_NAME = 'Xenova/all-MiniLM-L6-v2';

interface Tensor {
  dims: number[];
  data: Float32Array;
}
type FeatureExtractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<Tensor>;

/** Where transformers.js keeps downloaded models (its default `env.cacheDir`), if installed. */
export function transformersCacheDir(): string | undefined {
  try {
    const entry = fileURLToPath(import.meta.resolve('@huggingface/transformers'));
    // …/node_modules/@huggingface/transformers/dist/transformers.node.mjs → package root
    return join(dirname(dirname(entry)), '.cache');
  } catch {
    return undefined;
  }
}

/** The hub-cache copy of MiniLM, when a previous online run left one. */
export function cachedMiniLm(): string | undefined {
  const cache = transformersCacheDir();
  return cache && existsSync(join(cache, MINILM_HUB_NAME, 'onnx')) ? cache : undefined;
}

/**
 * Loads a model folder (`config.json`, `tokenizer.json`, `onnx/model.onnx` or
 * `onnx/model_quantized.onnx`) — either a folder path, or a hub name inside `localRoot`.
 */
export async function loadTransformersEmbedder(folder: string, localRoot?: string): Promise<Embedder> {
  const root = localRoot ?? dirname(resolve(folder));
  const name = localRoot ? folder : basename(resolve(folder));
  const modelDir = join(root, name);
  if (!existsSync(join(modelDir, 'config.json'))) throw new Error(`no model at ${modelDir} (config.json missing)`);
  const lib = await import('@huggingface/transformers');
  lib.env.allowRemoteModels = false;
  lib.env.allowLocalModels = true;
  lib.env.localModelPath = `${root}/`;
  lib.env.cacheDir = `${root}/`;
  const dtype = existsSync(join(modelDir, 'onnx', 'model.onnx')) ? 'fp32' : 'q8';
  const extract = (await lib.pipeline('feature-extraction', name, { dtype })) as unknown as FeatureExtractor;
  const run = async (texts: string[]): Promise<Float32Array[]> => {
    if (texts.length === 0) return [];
    const output = await extract(texts, { pooling: 'mean', normalize: true });
    const dim = output.dims[output.dims.length - 1]!;
    return texts.map((_, i) => Float32Array.from(output.data.subarray(i * dim, (i + 1) * dim)));
  };
  const [probe] = await run(['helix probe']);
  const dim = probe!.length;
  return { id: `transformers:${name.replace(/^.*\//, '')}:${dim}`, dim, embed: run };
}
