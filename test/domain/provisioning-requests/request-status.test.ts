import t from 'tap';
import type { Condition } from '../../../domain/api/status-conditions.js';
import type { ProvisioningRequest } from '../../../domain/provisioning-requests/provisioning-request.js';
import { requestKey } from '../../../domain/provisioning-requests/provisioning-request.js';
import {
  bookingExpiredCondition, bookingMs, checkedConditions, expiredCondition, invalidConditions, nextConditions, requestExpiryMs, requestStep,
} from '../../../domain/provisioning-requests/request-status.js';

const created = Date.parse('2026-11-28T10:00:00Z');
const at = (ms: number): string => new Date(ms).toISOString();

function request(className: string, conditions?: Condition[], parameters?: Record<string, string>): ProvisioningRequest {
  return {
    metadata: { name: 'job-1', namespace: 'batch', uid: 'u1', generation: 2, creationTimestamp: at(created) },
    spec: { provisioningClassName: className, podSets: [{ podTemplateRef: { name: 'w' }, count: 4 }], ...(parameters === undefined ? {} : { parameters }) },
    ...(conditions === undefined ? {} : { status: { conditions } }),
  };
}
const check = 'check-capacity.autoscaling.x-k8s.io';
const cond = (type: string, status: Condition['status'], sinceMs: number): Condition => ({ type, status, reason: 'R', message: '', lastTransitionTime: at(sinceMs) });

void t.test('a new request of either class Cluster Autoscaler serves is checked; an unknown class is someone else\'s', (t) => {
  t.same(requestStep(request(check), created), { kind: 'check' });
  t.same(requestStep(request('best-effort-atomic-scale-up.autoscaling.x-k8s.io'), created), { kind: 'check' });
  t.same(requestStep(request('best-effort-atomic-scale-up.autoscaling.x-k8s.io', [cond('Provisioned', 'True', created)]), created + bookingMs), { kind: 'booked' });
  t.same(requestStep(request('queued-provisioning.gke.io'), created), { kind: 'foreign' });
  t.end();
});

void t.test('Provisioned=False is checked again; Provisioned=True is booked for 10 minutes, then its booking expires', (t) => {
  t.same(requestStep(request(check, [cond('Provisioned', 'False', created)]), created + 60_000), { kind: 'check' });
  const provisioned = request(check, [cond('Provisioned', 'True', created)]);
  t.same(requestStep(provisioned, created + bookingMs), { kind: 'booked' });
  t.same(requestStep(provisioned, created + bookingMs + 1), { kind: 'booking-expired' });
  t.end();
});

void t.test('Failed and BookingExpired are the end; a request never provisioned fails as Expired after 7 days', (t) => {
  t.same(requestStep(request(check, [cond('Failed', 'True', created)]), created), { kind: 'settled' });
  t.same(requestStep(request(check, [cond('Provisioned', 'True', created), cond('BookingExpired', 'True', created)]), created + 2 * bookingMs), { kind: 'settled' });
  t.same(requestStep(request(check, [cond('Provisioned', 'False', created)]), created + requestExpiryMs + 1), { kind: 'expired' });
  t.match(expiredCondition, { type: 'Failed', status: 'True', reason: 'Expired', message: /within 7 days/ });
  t.end();
});

void t.test('a found capacity writes Accepted and Provisioned=True (CapacityIsFound)', (t) => {
  t.match(checkedConditions(request(check), { fits: true, pods: 4 }), [
    { type: 'Accepted', status: 'True', reason: 'Accepted' },
    { type: 'Provisioned', status: 'True', reason: 'CapacityIsFound', message: 'Capacity is found in the cluster: all 4 pods fit the existing nodes' },
  ]);
  t.end();
});

void t.test('no capacity writes Provisioned=False with how far it got, or Failed when the request asked for no retry', (t) => {
  const outcome = { fits: false, pods: 4, placed: 1, why: 'job-1-0-1: no node has room' } as const;
  t.match(checkedConditions(request(check), outcome)[1], { type: 'Provisioned', status: 'False', reason: 'CapacityIsNotFound', message: 'Capacity is not found, nodesmith will try to find it later: 1 of 4 pods fit the existing nodes; job-1-0-1: no node has room' });
  t.match(checkedConditions(request(check, undefined, { noRetry: 'true' }), outcome)[1], { type: 'Failed', status: 'True', reason: 'CapacityIsNotFound', message: /could not find the requested capacity: 1 of 4/ });
  t.match(checkedConditions(request(check, undefined, { noRetry: 'false' }), outcome)[1], { type: 'Provisioned', status: 'False' });
  t.end();
});

void t.test('bad input fails at once with its message; a booking ends as CapacityReservationTimeExpired', (t) => {
  t.same(invalidConditions('PodTemplate "w" not found'), [{ type: 'Failed', status: 'True', reason: 'FailedToCreatePods', message: 'PodTemplate "w" not found' }]);
  t.match(bookingExpiredCondition, { type: 'BookingExpired', status: 'True', reason: 'CapacityReservationTimeExpired' });
  t.end();
});

void t.test('next conditions stamp the generation on what changed, keep transition times of what did not, and say when nothing changes', (t) => {
  const before = request(check, [cond('Accepted', 'True', created), { ...cond('Provisioned', 'False', created), reason: 'CapacityIsNotFound', message: 'm' }]);
  const now = created + 30_000;
  const next = nextConditions(before, [{ type: 'Accepted', status: 'True', reason: 'R', message: '' }, { type: 'Provisioned', status: 'True', reason: 'CapacityIsFound', message: 'found' }], now);
  t.match(next, [
    { type: 'Accepted', lastTransitionTime: at(created), observedGeneration: 2 },
    { type: 'Provisioned', status: 'True', lastTransitionTime: at(now), observedGeneration: 2 },
  ]);
  t.equal(nextConditions(before, [{ type: 'Accepted', status: 'True', reason: 'R', message: '' }], now), undefined, 'the same again writes nothing');
  const ungenerated: ProvisioningRequest = { ...before, metadata: { name: 'x' } };
  t.notOk(nextConditions(ungenerated, [bookingExpiredCondition], now)?.some((c) => 'observedGeneration' in c), 'no generation, no stamp');
  t.equal(requestKey(ungenerated), 'default/x');
  t.end();
});

void t.test('a request without creation time or transition time is taken as made now', (t) => {
  const bare: ProvisioningRequest = { metadata: { name: 'x' }, spec: { provisioningClassName: check, podSets: [] }, status: { conditions: [{ type: 'Provisioned', status: 'True', reason: 'R', message: '', lastTransitionTime: 'not a time' }] } };
  t.same(requestStep(bare, created), { kind: 'booked' });
  t.same(requestStep({ ...bare, status: {} }, created), { kind: 'check' });
  t.end();
});
