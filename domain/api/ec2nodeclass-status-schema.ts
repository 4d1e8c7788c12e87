import { Type, type Static } from '@sinclair/typebox';
import { Conditions, stringEnum } from './structural-schema.js';

export const EC2NodeClassStatus = Type.Object({
  subnets: Type.Optional(Type.Array(Type.Object({ id: Type.String(), zone: Type.String(), zoneID: Type.Optional(Type.String()) }))),
  securityGroups: Type.Optional(Type.Array(Type.Object({ id: Type.String(), name: Type.Optional(Type.String()) }))),
  amis: Type.Optional(Type.Array(Type.Object({
    id: Type.String(),
    name: Type.Optional(Type.String()),
    deprecated: Type.Optional(Type.Boolean()),
    // Plain requirements: status is written by the controller, and CEL inside two unbounded lists
    // would blow the API server's cost estimate.
    requirements: Type.Array(Type.Object({
      key: Type.String(),
      operator: Type.String(),
      values: Type.Optional(Type.Array(Type.String())),
      minValues: Type.Optional(Type.Integer()),
    })),
  }))),
  capacityReservations: Type.Optional(Type.Array(Type.Object({
    availabilityZone: Type.String(),
    endTime: Type.Optional(Type.String({ format: 'date-time' })),
    id: Type.String({ pattern: '^cr-[0-9a-z]+$' }),
    instanceMatchCriteria: stringEnum(['open', 'targeted'] as const),
    instanceType: Type.String(),
    ownerID: Type.String({ pattern: '^[0-9]{12}$' }),
    reservationType: Type.Optional(stringEnum(['default', 'capacity-block'] as const, { default: 'default' })),
    interruptible: Type.Optional(Type.Boolean()),
    state: Type.Optional(stringEnum(['active', 'expiring'] as const, { default: 'active' })),
  }))),
  instanceProfile: Type.Optional(Type.String()),
  conditions: Type.Optional(Conditions),
});
export type EC2NodeClassStatus = Static<typeof EC2NodeClassStatus>;
