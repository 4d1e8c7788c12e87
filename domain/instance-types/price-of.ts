/**
 * Hourly price of an offering (instance type, zone, capacity type); 0 when the catalog does not know it. Consolidation
 * prices candidates and replacements with it, and the NodePool cost gauge prices launched NodeClaims.
 */
export type PriceOf = (instanceType: string, zone: string | undefined, capacityType: string | undefined) => number;
