/** A JSON merge patch of a label map, as the API server applies one: a value sets the key, null removes it. */
export function mergeLabels(labels: Readonly<Record<string, string>> | undefined, patch: Readonly<Record<string, string | null>>): Record<string, string> {
  const merged = Object.entries({ ...labels, ...patch });
  return Object.fromEntries(merged.filter((entry): entry is [string, string] => entry[1] !== null));
}
