import t from 'tap';
import { allowedValues } from '../../../domain/requirements/allowed-values.js';

const zones = ['a', 'b', 'c'];

void t.test('allowedValues keeps every candidate when no requirement names the key', (t) => {
  t.same(allowedValues([{ key: 'other', operator: 'In', values: ['x'] }], 'zone', zones), zones);
  t.end();
});

void t.test('allowedValues narrows to In and removes NotIn', (t) => {
  t.same(allowedValues([{ key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'zone', operator: 'NotIn', values: ['b'] }], 'zone', zones), ['a']);
  t.end();
});

void t.test('allowedValues allows nothing under DoesNotExist and everything under Exists', (t) => {
  t.same(allowedValues([{ key: 'zone', operator: 'DoesNotExist' }], 'zone', zones), []);
  t.same(allowedValues([{ key: 'zone', operator: 'Exists' }], 'zone', zones), zones);
  t.end();
});
