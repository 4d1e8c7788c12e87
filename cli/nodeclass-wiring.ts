import type * as k8s from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { systemClock } from '../domain/clock.js';
import type { InstanceProfileProvider } from '../domain/cloud/instance-profiles.js';
import type { Controller } from '../provisioner/controller-runner.js';
import { KubeNodeClassClient } from '../provisioner/kube/ec2nodeclass-client.js';
import { InstanceProfileController, type NodeClassView } from '../provisioner/nodeclass/instance-profile-controller.js';

export interface NodeClassWiring {
  readonly kc: k8s.KubeConfig;
  readonly state: NodeClassView;
  readonly profiles: InstanceProfileProvider;
  readonly cluster: string;
  readonly region: string;
  readonly log: Logger;
}

/** The EC2NodeClass controllers, for the leader's ControllerRunner; woken when an EC2NodeClass changes. */
export function nodeClassControllers(w: NodeClassWiring): Controller[] {
  const log = w.log.child({ component: 'provisioner.nodeclass' });
  return [
    new InstanceProfileController({ view: w.state, writer: new KubeNodeClassClient(w.kc), profiles: w.profiles, cluster: w.cluster, region: w.region, clock: systemClock, log }),
  ];
}
