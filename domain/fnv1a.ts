/**
 * FNV-1a: stable, dependency-free hashes of names, the same in every process (not for security). Both read the
 * text's UTF-8 bytes; for the ASCII names hashed here that is one step per character.
 */

/** 32 bits, as a non-negative number. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** 64 bits, as a bigint (Karpenter's instance-profile names use it). */
export function fnv1a64(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash;
}
