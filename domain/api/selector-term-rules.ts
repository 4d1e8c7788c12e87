import type { EC2NodeClassSpec } from './ec2nodeclass-schema.js';
import { fieldPath, problem, type Problem } from './problem.js';
import { aliasFamilies, windowsAliasFamilies } from './schema-values.js';

type Term = Readonly<Record<string, unknown>>;

interface TermShape {
  readonly list: string;
  readonly fields: readonly string[];
  /** Fields that must stand alone in their term, with the fields they exclude. */
  readonly exclusive: Readonly<Record<string, readonly string[]>>;
}

const shapes: readonly TermShape[] = [
  { list: 'subnetSelectorTerms', fields: ['tags', 'id', 'cidr'], exclusive: { id: ['tags', 'cidr'] } },
  { list: 'securityGroupSelectorTerms', fields: ['tags', 'id', 'name'], exclusive: { id: ['tags', 'name'], name: ['tags', 'id'] } },
  {
    list: 'amiSelectorTerms', fields: ['alias', 'tags', 'id', 'name', 'owner', 'ssmParameter'],
    exclusive: { id: ['tags', 'name', 'owner'], alias: ['id', 'tags', 'name', 'owner'] },
  },
  {
    list: 'capacityReservationSelectorTerms', fields: ['tags', 'id', 'instanceMatchCriteria'],
    exclusive: { id: ['tags', 'ownerID', 'instanceMatchCriteria'] },
  },
];

function checkTags(tags: unknown, path: string): Problem[] {
  if (tags === null || typeof tags !== 'object') return [];
  return Object.entries(tags as Record<string, unknown>)
    .filter(([k, v]) => k === '' || v === '')
    .map(([k, v]) => problem(fieldPath(path, k), 'selector-tag-empty', v, "empty tag keys or values aren't supported"));
}

function checkTerm(term: Term, shape: TermShape, path: string): Problem[] {
  const out: Problem[] = [];
  if (!shape.fields.some((f) => term[f] !== undefined)) {
    out.push(problem(path, 'selector-term-empty', term, `expected at least one, got none, [${shape.fields.map((f) => `'${f}'`).join(', ')}]`));
  }
  for (const [field, excluded] of Object.entries(shape.exclusive)) {
    const clash = excluded.filter((f) => term[f] !== undefined);
    if (term[field] !== undefined && clash.length > 0) {
      out.push(problem(`${path}.${field}`, 'selector-term-exclusive', term[field], `'${field}' is mutually exclusive, cannot be set with ${clash.map((f) => `'${f}'`).join(', ')} in the same term`));
    }
  }
  out.push(...checkTags(term['tags'], `${path}.tags`));
  return out;
}

function checkAlias(alias: string, path: string): Problem[] {
  const [family = '', version = ''] = alias.split('@');
  if (!(aliasFamilies as readonly string[]).includes(family)) {
    return [problem(path, 'alias-family', alias, `family is not supported, must be one of the following: ${aliasFamilies.join(', ')}`)];
  }
  if (windowsAliasFamilies.includes(family) && version !== 'latest') {
    return [problem(path, 'alias-windows-version', alias, "windows families may only specify version 'latest'")];
  }
  return [];
}

/** Selector-term exclusivity for every selector list, plus the alias rules of amiSelectorTerms. */
export function checkSelectorTerms(spec: EC2NodeClassSpec): Problem[] {
  const out: Problem[] = [];
  const record = spec as unknown as Readonly<Record<string, unknown>>;
  for (const shape of shapes) {
    const terms = record[shape.list];
    if (!Array.isArray(terms)) continue;
    terms.forEach((term: Term, i) => { out.push(...checkTerm(term, shape, fieldPath('spec', shape.list, i))); });
  }
  spec.amiSelectorTerms.forEach((term, i) => {
    if (term.alias !== undefined) out.push(...checkAlias(term.alias, `spec.amiSelectorTerms[${i}].alias`));
  });
  if (spec.amiSelectorTerms.some((t) => t.alias !== undefined) && spec.amiSelectorTerms.length > 1) {
    out.push(problem('spec.amiSelectorTerms', 'alias-single-term', spec.amiSelectorTerms.length, "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"));
  }
  return out;
}
