import t from 'tap';
import { userDataFor } from '../../../../provisioner/aws/user-data/user-data.js';
import { decode, input } from './fixtures.js';

void t.test('each AMI family gets user data in the language its image reads', (t) => {
  t.match(decode(userDataFor(input({ amiFamily: 'AL2023' }))), /application\/node\.eks\.aws/);
  t.match(decode(userDataFor(input({ amiFamily: 'AL2' }))), /\/etc\/eks\/bootstrap\.sh/);
  t.match(decode(userDataFor(input({ amiFamily: 'Bottlerocket' }))), /^\[settings\.kubernetes\]/m);
  for (const family of ['Windows2019', 'Windows2022', 'Windows2025'] as const)
    t.match(decode(userDataFor(input({ amiFamily: family }))), /^<powershell>\n[\s\S]*Start-EKSBootstrap/, family);
  t.end();
});

void t.test('a Custom class gets its user data unchanged, or none', (t) => {
  const userData = '#!/bin/bash\n/opt/join --my-way\n';
  t.equal(decode(userDataFor(input({ amiFamily: 'Custom', userData, kubelet: { maxPods: 3 } }))), userData);
  t.equal(userDataFor(input({ amiFamily: 'Custom' })), '');
  t.end();
});

void t.test('a taint the NodeClaim already registers with is not written twice', (t) => {
  const text = decode(
    userDataFor(input({ amiFamily: 'AL2' }, { taints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }] })),
  );
  t.match(text, /--register-with-taints="karpenter\.sh\/unregistered:NoExecute"/);
  t.end();
});

void t.test('an on-demand launch registers as on-demand; a kubelet without max pods writes none', (t) => {
  const al2 = decode(userDataFor(input({ amiFamily: 'AL2' }, { capacityType: 'on-demand', kubelet: {} })));
  t.match(al2, /karpenter\.sh\/capacity-type=on-demand/);
  t.notMatch(al2, /--max-pods|--use-max-pods/, 'no planned pod count, no max pods');
  t.end();
});
