// The in-memory vector index for one embedder: every vector in one Float32Array, scanned by a
// brute-force dot product (vectors are normalised). Loaded once per process (from the packed
// snapshot in `vector_cache`, else from the `embeddings` rows) and kept in step with this
// process's own writes; another process's commit makes it reload (store-context.ts compares the store
// generation). Brute force beats reading BLOBs per query by ~10× and needs no extension
// (`npm run bench:memory` times recall at 1K and 10K memories: docs/benchmarks.md).
import { MEMORY_TYPES, type MemoryType } from './constants.js';

const typeCode = (type: string): number => MEMORY_TYPES.indexOf(type as (typeof MEMORY_TYPES)[number]);

/** The index flattened for the `vector_cache` table: one BLOB each. */
export interface PackedIndex {
  ids: Buffer;
  types: Buffer;
  vectors: Buffer;
}

export interface Neighbour {
  id: number;
  cosine: number;
  type: MemoryType;
}

export class VectorIndex {
  readonly dim: number;
  private matrix: Float32Array;
  private ids: number[] = [];
  private types: number[] = [];
  private positions = new Map<number, number>();

  constructor(dim: number, capacity = 1024) {
    this.dim = dim;
    this.matrix = new Float32Array(dim * Math.max(1, capacity));
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: number): boolean {
    return this.positions.has(id);
  }

  add(id: number, type: string, vector: Float32Array): void {
    if (vector.length !== this.dim) throw new Error(`vector of ${vector.length} dims in a ${this.dim}-d index`);
    const existing = this.positions.get(id);
    if (existing !== undefined) {
      this.matrix.set(vector, existing * this.dim);
      this.types[existing] = typeCode(type);
      return;
    }
    const at = this.ids.length;
    if ((at + 1) * this.dim > this.matrix.length) {
      // A snapshot of an empty index unpacks to a zero-length matrix: doubling alone never grows it.
      const grown = new Float32Array(Math.max(this.matrix.length * 2, (at + 1) * this.dim * 2));
      grown.set(this.matrix);
      this.matrix = grown;
    }
    this.matrix.set(vector, at * this.dim);
    this.ids.push(id);
    this.types.push(typeCode(type));
    this.positions.set(id, at);
  }

  /** Swap-remove: the last vector takes the removed one's slot. */
  remove(id: number): void {
    const at = this.positions.get(id);
    if (at === undefined) return;
    const last = this.ids.length - 1;
    if (at !== last) {
      this.matrix.copyWithin(at * this.dim, last * this.dim, (last + 1) * this.dim);
      const movedId = this.ids[last]!;
      this.ids[at] = movedId;
      this.types[at] = this.types[last]!;
      this.positions.set(movedId, at);
    }
    this.ids.pop();
    this.types.pop();
    this.positions.delete(id);
  }

  vector(id: number): Float32Array | undefined {
    const at = this.positions.get(id);
    return at === undefined ? undefined : this.matrix.subarray(at * this.dim, (at + 1) * this.dim);
  }

  pack(): PackedIndex {
    const n = this.ids.length;
    return {
      ids: Buffer.from(Float64Array.from(this.ids).buffer),
      types: Buffer.from(Uint8Array.from(this.types).buffer),
      vectors: Buffer.from(this.matrix.buffer, this.matrix.byteOffset, n * this.dim * 4),
    };
  }

  static fromPacked(dim: number, packed: PackedIndex): VectorIndex {
    const index = new VectorIndex(dim, 1);
    const v = packed.vectors;
    // View the BLOB's memory directly when it is aligned (large Buffers are); copy otherwise.
    index.matrix = v.byteOffset % 4 === 0 ? new Float32Array(v.buffer, v.byteOffset, v.byteLength / 4) : fromBlob(v);
    index.ids = Array.from(fromBlob64(packed.ids));
    index.types = Array.from(packed.types);
    index.ids.forEach((id, at) => index.positions.set(id, at));
    return index;
  }

  /** Cosines of every indexed vector (of `type`, when given) to `query`, best `limit` first. */
  nearest(query: Float32Array, limit: number, type?: string): Neighbour[] {
    const { dim, matrix } = this;
    const best: Neighbour[] = [];
    let floor = -Infinity;
    const wanted = type === undefined ? -1 : typeCode(type);
    for (let row = 0; row < this.ids.length; row++) {
      if (wanted >= 0 && this.types[row] !== wanted) continue;
      const base = row * dim;
      let dot = 0;
      let i = 0;
      // Unrolled by four: ~40% faster than the plain loop on V8.
      for (; i + 3 < dim; i += 4) {
        dot +=
          matrix[base + i]! * query[i]! +
          matrix[base + i + 1]! * query[i + 1]! +
          matrix[base + i + 2]! * query[i + 2]! +
          matrix[base + i + 3]! * query[i + 3]!;
      }
      for (; i < dim; i++) dot += matrix[base + i]! * query[i]!;
      if (best.length < limit || dot > floor) {
        insertSorted(best, { id: this.ids[row]!, cosine: Math.min(1, dot), type: MEMORY_TYPES[this.types[row]!]! }, limit);
        floor = best.length === limit ? best[best.length - 1]!.cosine : -Infinity;
      }
    }
    return best;
  }
}

function insertSorted(list: Neighbour[], item: Neighbour, limit: number): void {
  let at = list.length;
  while (at > 0 && list[at - 1]!.cosine < item.cosine) at--;
  list.splice(at, 0, item);
  if (list.length > limit) list.pop();
}

export function toBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function fromBlob(blob: Buffer): Float32Array {
  // Copy: the Buffer may share a pool and be misaligned for a Float32Array view.
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

function fromBlob64(blob: Buffer): Float64Array {
  const out = new Float64Array(blob.byteLength / 8);
  new Uint8Array(out.buffer).set(blob);
  return out;
}
