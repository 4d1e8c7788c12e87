/**
 * Orders strings by UTF-16 code unit, as Go's sort.Strings orders them: a total order that needs no locale.
 * `localeCompare` asks ICU's collator, which maps ICU's collation data into the process on first use (about 3 MiB
 * resident, measured) and costs more per comparison. For what nodesmith sorts (DNS names, instance types, zones,
 * cloud IDs, RFC 3339 times) the two orders agree; they differ for mixed case and non-ASCII text.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
