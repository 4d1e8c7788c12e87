import { Type, type Static } from '@sinclair/typebox';
import { cel, stringEnum, stringMap } from './structural-schema.js';
import { aliasFamilies, placementGroupMessages, windowsAliasFamilies } from './schema-values.js';

/** Tag maps in selector terms: `*` matches any value; empty keys or values mean nothing to EC2. */
const SelectorTags = stringMap({
  maxProperties: 20,
  ...cel({ rule: "self.all(k, k != '' && self[k] != '')", message: "empty tag keys or values aren't supported" }),
});

/** An IPv4 CIDR block: four octets of 0–255 and a prefix length of 0–32. */
const ipv4CidrPattern = '^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])/([0-9]|[12][0-9]|3[0-2])$';

function familyList(values: readonly string[]): string {
  return values.map((v) => `'${v}'`).join(', ');
}

export const SubnetSelectorTerm = Type.Object(
  {
    tags: Type.Optional(SelectorTags),
    id: Type.Optional(Type.String({ pattern: '^subnet-[0-9a-z]+$' })),
    /**
     * nodesmith's own: the subnet's IPv4 CIDR block, matched exactly (EC2's `cidr-block` filter). Karpenter v1.15
     * has no such field (its CRD would prune it); see docs/api-fields.md.
     */
    cidr: Type.Optional(Type.String({ pattern: ipv4CidrPattern })),
  },
  {
    ...cel(
      { rule: 'has(self.tags) || has(self.id) || has(self.cidr)', message: "expected at least one, got none, ['tags', 'id', 'cidr']" },
      { rule: '!has(self.id) || !(has(self.tags) || has(self.cidr))', message: "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term" },
    ),
  },
);
export type SubnetSelectorTerm = Static<typeof SubnetSelectorTerm>;

export const SecurityGroupSelectorTerm = Type.Object(
  {
    tags: Type.Optional(SelectorTags),
    id: Type.Optional(Type.String({ pattern: '^sg-[0-9a-z]+$' })),
    name: Type.Optional(Type.String()),
  },
  {
    ...cel(
      { rule: 'has(self.tags) || has(self.id) || has(self.name)', message: "expected at least one, got none, ['tags', 'id', 'name']" },
      { rule: '!has(self.id) || !(has(self.tags) || has(self.name))', message: "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term" },
      { rule: '!has(self.name) || !(has(self.tags) || has(self.id))', message: "'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term" },
    ),
  },
);
export type SecurityGroupSelectorTerm = Static<typeof SecurityGroupSelectorTerm>;

export const AmiSelectorTerm = Type.Object(
  {
    alias: Type.Optional(
      Type.String({
        maxLength: 30,
        pattern: '^[a-z0-9]+@[a-zA-Z0-9.\\-_]+$',
        ...cel(
          { rule: `self.find('^[^@]+') in [${familyList(aliasFamilies)}]`, message: `family is not supported, must be one of the following: ${aliasFamilies.join(', ')}` },
          { rule: `!(self.find('^[^@]+') in [${familyList(windowsAliasFamilies)}]) || self.find('[^@]+$') == 'latest'`, message: "windows families may only specify version 'latest'" },
        ),
      }),
    ),
    tags: Type.Optional(SelectorTags),
    id: Type.Optional(Type.String({ pattern: '^ami-[0-9a-z]+$' })),
    name: Type.Optional(Type.String()),
    owner: Type.Optional(Type.String()),
    ssmParameter: Type.Optional(Type.String()),
  },
  {
    ...cel(
      { rule: 'has(self.alias) || has(self.tags) || has(self.id) || has(self.name) || has(self.owner) || has(self.ssmParameter)', message: "expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']" },
      { rule: '!has(self.id) || !(has(self.tags) || has(self.name) || has(self.owner))', message: "'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms" },
      { rule: '!has(self.alias) || !(has(self.id) || has(self.tags) || has(self.name) || has(self.owner))', message: "'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms" },
    ),
  },
);
export type AmiSelectorTerm = Static<typeof AmiSelectorTerm>;

export const CapacityReservationSelectorTerm = Type.Object(
  {
    tags: Type.Optional(SelectorTags),
    id: Type.Optional(Type.String({ pattern: '^cr-[0-9a-z]+$' })),
    ownerID: Type.Optional(Type.String({ pattern: '^[0-9]{12}$' })),
    instanceMatchCriteria: Type.Optional(stringEnum(['open', 'targeted'] as const)),
  },
  {
    ...cel(
      { rule: 'has(self.tags) || has(self.id) || has(self.instanceMatchCriteria)', message: "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']" },
      { rule: '!has(self.id) || !(has(self.tags) || has(self.ownerID) || has(self.instanceMatchCriteria))', message: "'id' is mutually exclusive, cannot be set along with tags, ownerID or instanceMatchCriteria in a capacity reservation selector term" },
    ),
  },
);
export type CapacityReservationSelectorTerm = Static<typeof CapacityReservationSelectorTerm>;

/** Karpenter's bounds: a non-empty name (no maximum), or an id `pg-…`, never both. */
export const PlacementGroupSelector = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    id: Type.Optional(Type.String({ pattern: '^pg-[0-9a-z]+$' })),
  },
  {
    ...cel(
      { rule: 'has(self.name) || has(self.id)', message: placementGroupMessages.none },
      { rule: '!(has(self.name) && has(self.id))', message: placementGroupMessages.both },
    ),
  },
);
