import type { InterruptionQueue, QueueMessage } from '../../domain/cloud/interruption-queue.js';

/**
 * An in-memory queue with SQS's delivery rules that the controller relies on: receive hands out
 * at most ten, an empty queue long-polls (until a message is sent or the signal aborts), a
 * received message stays invisible until deleted, and `failures` makes the next receives throw
 * (a throttled or unreachable queue).
 */
export class FakeInterruptionQueue implements InterruptionQueue {
  readonly name = 'fake-queue';
  readonly #waiting: QueueMessage[] = [];
  readonly #inFlight = new Map<string, QueueMessage>();
  readonly deleted: string[] = [];
  failures: Error[] = [];
  receives = 0;
  #next = 0;
  #arrived: (() => void) | undefined;

  send(body: string): string {
    const id = `m-${String(++this.#next)}`;
    this.#waiting.push({ id, body, receiptHandle: `rh-${id}` });
    this.#arrived?.();
    return id;
  }

  async receive(signal?: AbortSignal): Promise<QueueMessage[]> {
    this.receives++;
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
    if (this.#waiting.length === 0) await this.#longPoll(signal);
    const batch = this.#waiting.splice(0, 10);
    for (const m of batch) this.#inFlight.set(m.receiptHandle, m);
    return batch;
  }

  async #longPoll(signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#arrived = resolve;
      signal?.addEventListener('abort', () => { reject(new DOMException('aborted', 'AbortError')); }, { once: true });
    });
  }

  delete(message: QueueMessage): Promise<void> {
    if (this.#inFlight.delete(message.receiptHandle)) this.deleted.push(message.id);
    return Promise.resolve();
  }

  /** Messages received but not deleted, as SQS would redeliver them after the visibility timeout. */
  get undeleted(): number {
    return this.#inFlight.size;
  }

  get waiting(): number {
    return this.#waiting.length;
  }
}
