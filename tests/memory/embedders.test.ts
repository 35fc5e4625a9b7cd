import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { memoryText, openMemoryStore, selectEmbedder, lexicalEmbedder, LEXICAL_ID } from '../../src/memory/index.js';
import { cosine } from '../../src/memory/embedders/embedder.js';
import { tempDir } from '../helpers/cli.js';
// @ts-expect-error plain ESM fixture without type declarations
import { writeTinyModel } from './fixtures/tiny-model.mjs';

const tinyModel = (): string => writeTinyModel(join(tempDir('helix-tiny-model-'), 'tiny-bert')) as string;

describe('the transformers.js embedder on a generated tiny BERT model (no network)', () => {
  it('loads through HELIX_MODEL_PATH with remote loading off and embeds with the model width', async () => {
    const warnings: string[] = [];
    const embedder = await selectEmbedder({ HELIX_MODEL_PATH: tinyModel() }, (m) => warnings.push(m));
    expect(warnings).toEqual([]);
    expect(embedder.id).toBe('transformers:tiny-bert:384');
    expect(embedder.dim).toBe(384);
    const { env } = await import('@huggingface/transformers');
    expect(env.allowRemoteModels).toBe(false);
    const [a, b, c] = await embedder.embed(['the build fails with a missing module', 'the build fails with a missing module', 'sqlite database locked']);
    expect(a).toHaveLength(384);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
    expect(cosine(a!, c!)).toBeLessThan(0.99);
  });

  it('a store opened with the model embeds existing memories for it and never mixes models', async () => {
    const dir = tempDir('helix-memory-models-');
    const dbPath = join(dir, 'helix.db');
    const lexical = openMemoryStore({ dbPath, env: {}, embedder: lexicalEmbedder });
    await lexical.store({ trigger: 'the build fails with a missing module import', resolution: 'install the dependency' });
    lexical.close();

    const semantic = openMemoryStore({ dbPath, env: { HELIX_MODEL_PATH: tinyModel() }, warn: () => undefined });
    expect(await semantic.embedderId()).toBe('transformers:tiny-bert:384');
    const [top] = await semantic.recall(memoryText('the build fails with a missing module import', 'install the dependency'));
    expect(top).toMatchObject({ name: 'the-build-fails-with-a-missing-module-import', _relevance: 1 });
    semantic.close();

    const db = new Database(dbPath, { readonly: true });
    expect(db.prepare('SELECT embedder, dim FROM embeddings ORDER BY embedder').all()).toEqual([
      { embedder: LEXICAL_ID, dim: 384 },
      { embedder: 'transformers:tiny-bert:384', dim: 384 },
    ]);
    db.close();
  });
});

describe('embedder selection', () => {
  it('falls back to the lexical embedder with one warning when the model folder is unusable', async () => {
    const warnings: string[] = [];
    const embedder = await selectEmbedder({ HELIX_MODEL_PATH: tempDir('helix-empty-model-') }, (m) => warnings.push(m));
    expect(embedder.id).toBe(LEXICAL_ID);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^helix: memory: minilm embedder unavailable \(no model at .*config\.json missing\)\); using the lexical fallback$/);
  });

  it('HELIX_EMBEDDER=lexical pins the fallback even with a model path; an unknown value is a validation error', async () => {
    expect((await selectEmbedder({ HELIX_EMBEDDER: 'lexical', HELIX_MODEL_PATH: '/nowhere' }, () => undefined)).id).toBe(LEXICAL_ID);
    await expect(selectEmbedder({ HELIX_EMBEDDER: 'gpt' }, () => undefined)).rejects.toThrow(/HELIX_EMBEDDER must be one of lexical, use, minilm/);
  });
});
