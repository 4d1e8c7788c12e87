import t from 'tap';
import { FakeClock } from '../../../domain/clock.js';
import { capacityBlockExpiryMs, reservationState } from '../../../domain/cloud/capacity-reservation.js';
import { ReservationAvailability } from '../../../domain/cloud/reservation-availability.js';

void t.test("a reservation's free count follows EC2, less our launches since, plus our terminations", (t) => {
  const clock = new FakeClock(1_000);
  const a = new ReservationAvailability(clock);
  t.equal(a.available('cr-1'), 0, 'a reservation never described takes nothing');
  a.sync(new Map([['cr-1', 2]]));
  a.markLaunched('cr-1', 500);
  t.equal(a.available('cr-1'), 2, 'a launch from before the describe is already in its count');
  a.markLaunched('cr-1');
  t.equal(a.available('cr-1'), 1);
  a.markTerminated('cr-1');
  t.equal(a.available('cr-1'), 2);
  a.markUnavailable('cr-1');
  t.equal(a.available('cr-1'), 0, 'EC2 said it is full');
  a.markLaunched('cr-1');
  t.equal(a.available('cr-1'), 0, 'never below zero');
  a.sync(new Map([['cr-1', 3]]));
  t.equal(a.available('cr-1'), 3, "EC2's next answer replaces ours");
  t.end();
});

void t.test('a capacity block is expiring in its last 40 minutes; an ODCR with an end never is', (t) => {
  const end = 10 * 60 * 60_000;
  t.equal(reservationState({ type: 'capacity-block', endTime: end }, end - capacityBlockExpiryMs - 1), 'active');
  t.equal(reservationState({ type: 'capacity-block', endTime: end }, end - capacityBlockExpiryMs), 'expiring');
  t.equal(reservationState({ type: 'default', endTime: end }, end - 1), 'active');
  t.equal(reservationState({ type: 'capacity-block' }, end), 'active');
  t.end();
});
