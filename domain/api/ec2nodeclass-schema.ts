import { Type, type Static } from '@sinclair/typebox';
import { BlockDeviceMappings, MetadataOptions } from './block-device-schema.js';
import { EC2NodeClassStatus } from './ec2nodeclass-status-schema.js';
import { KubeletConfiguration } from './kubelet-schema.js';
import { apiObjectSchema } from './api-object-schema.js';
import {
  AmiSelectorTerm, CapacityReservationSelectorTerm, PlacementGroupSelector, SecurityGroupSelectorTerm, SubnetSelectorTerm,
} from './selector-terms-schema.js';
import { cel, stringEnum, stringMap } from './structural-schema.js';
import { networkInterfaceMessages, restrictedTagKeys, restrictedTagPrefix } from './schema-values.js';
import { amiFamilies } from './ami-families.js';

const Tags = stringMap({
  ...cel(
    { rule: "self.all(k, k != '')", message: 'empty tag keys aren\'t supported' },
    ...restrictedTagKeys.map((k) => ({ rule: `self.all(k, k != '${k}')`, message: `tag contains a restricted tag matching ${k}` })),
    { rule: `self.all(k, !k.startsWith('${restrictedTagPrefix}'))`, message: `tag contains a restricted tag matching ${restrictedTagPrefix}` },
  ),
});

// Karpenter's bounds: no maximum index (EC2 and the instance type decide; its compatibility check drops a type that
// has fewer cards or interfaces than the class names).
export const NetworkInterface = Type.Object({
  networkCardIndex: Type.Integer({ minimum: 0, format: 'int32' }),
  deviceIndex: Type.Integer({ minimum: 0, format: 'int32' }),
  interfaceType: stringEnum(['interface', 'efa-only'] as const),
});
export type NetworkInterface = Static<typeof NetworkInterface>;

const ConnectionTracking = Type.Object(
  {
    tcpEstablishedTimeout: Type.Optional(Type.Integer({ minimum: 60, maximum: 432000, format: 'int32' })),
    udpStreamTimeout: Type.Optional(Type.Integer({ minimum: 60, maximum: 180, format: 'int32' })),
    udpTimeout: Type.Optional(Type.Integer({ minimum: 30, maximum: 60, format: 'int32' })),
  },
  { ...cel({ rule: 'has(self.tcpEstablishedTimeout) || has(self.udpStreamTimeout) || has(self.udpTimeout)', message: 'at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set' }) },
);

const aliasOf = "self.amiSelectorTerms.exists(x, has(x.alias))";

export const EC2NodeClassSpec = Type.Object(
  {
    subnetSelectorTerms: Type.Array(SubnetSelectorTerm, { minItems: 1, maxItems: 30 }),
    securityGroupSelectorTerms: Type.Array(SecurityGroupSelectorTerm, { minItems: 1, maxItems: 30 }),
    capacityReservationSelectorTerms: Type.Optional(Type.Array(CapacityReservationSelectorTerm, { maxItems: 30 })),
    placementGroupSelector: Type.Optional(PlacementGroupSelector),
    associatePublicIPAddress: Type.Optional(Type.Boolean()),
    ipPrefixCount: Type.Optional(Type.Integer({ minimum: 0, format: 'int32' })),
    amiSelectorTerms: Type.Array(AmiSelectorTerm, {
      minItems: 1,
      maxItems: 30,
      ...cel({ rule: '!self.exists(x, has(x.alias)) || self.size() == 1', message: "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms" }),
    }),
    amiFamily: Type.Optional(stringEnum(amiFamilies)),
    userData: Type.Optional(Type.String()),
    role: Type.Optional(Type.String({ minLength: 1, ...cel({ rule: "self != ''", message: 'role cannot be empty' }) })),
    instanceProfile: Type.Optional(Type.String({ minLength: 1, ...cel({ rule: "self != ''", message: 'instanceProfile cannot be empty' }) })),
    tags: Type.Optional(Tags),
    kubelet: Type.Optional(KubeletConfiguration),
    blockDeviceMappings: Type.Optional(BlockDeviceMappings),
    instanceStorePolicy: Type.Optional(stringEnum(['RAID0'] as const)),
    detailedMonitoring: Type.Optional(Type.Boolean()),
    metadataOptions: Type.Optional(MetadataOptions),
    context: Type.Optional(Type.String()),
    cpuOptions: Type.Optional(Type.Object({ nestedVirtualization: Type.Optional(stringEnum(['enabled', 'disabled'] as const)) })),
    networkInterfaces: Type.Optional(Type.Array(NetworkInterface, {
      maxItems: 150,
      // Karpenter's two rules, word for word: an empty list is accepted (it then launches the default primary interface).
      ...cel(
        { rule: "self.size() == 0 || self.exists(x, x.deviceIndex == 0 && x.networkCardIndex == 0 && x.interfaceType == 'interface')", message: networkInterfaceMessages.primary },
        { rule: "self.all(x, self.filter(y, x.networkCardIndex == y.networkCardIndex && x.deviceIndex == y.deviceIndex).size() == 1 && (x.interfaceType != 'efa-only' || self.filter(y, x.networkCardIndex == y.networkCardIndex && y.interfaceType == 'efa-only').size() == 1))", message: networkInterfaceMessages.unique },
      ),
    })),
    connectionTracking: Type.Optional(ConnectionTracking),
  },
  {
    ...cel(
      { rule: `${aliasOf} || has(self.amiFamily)`, message: 'amiFamily must be specified if amiSelectorTerms does not contain an alias' },
      { rule: `!(has(self.amiFamily) && ${aliasOf}) || self.amiFamily == 'Custom' || self.amiSelectorTerms.exists(x, has(x.alias) && x.alias.find('^[^@]+') == self.amiFamily.lowerAscii())`, message: "amiFamily must match the alias family or be 'Custom'" },
      { rule: 'has(self.role) != has(self.instanceProfile)', message: "must specify exactly one of ['role', 'instanceProfile']" },
      { rule: '(has(oldSelf.role) && has(self.role)) || (has(oldSelf.instanceProfile) && has(self.instanceProfile)) || (!has(oldSelf.role) && !has(oldSelf.instanceProfile))', message: "changing from 'role' to 'instanceProfile' or back is not supported; create a new EC2NodeClass" },
    ),
  },
);
export type EC2NodeClassSpec = Static<typeof EC2NodeClassSpec>;

export const EC2NodeClass = apiObjectSchema({ apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass' }, EC2NodeClassSpec, EC2NodeClassStatus);
export type EC2NodeClass = Static<typeof EC2NodeClass>;
