import type { JobNumbers } from '../store/job-numbers.js';

/** Entries kept per direction; past it the cache starts over (numbers never change, so a miss only costs a store call). */
const MAX_ENTRIES = 200_000;

/**
 * The store's job numbers (store/job-numbers.ts) behind a process cache, safe because a number never
 * changes once given; the lookups of one event-loop turn share one store call.
 */
export class NumberCache {
  private readonly byId = new Map<string, number>();
  private readonly byNumber = new Map<number, string>();
  private readonly numbers: JobNumbers;
  private pending: { id: string; resolve(n: number): void; reject(err: unknown): void }[] = [];

  constructor(numbers: JobNumbers) {
    this.numbers = numbers;
  }

  numberOf(id: string): Promise<number> {
    const known = this.byId.get(id);
    if (known !== undefined) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ id, resolve, reject });
    });
  }

  async idOf(number: number): Promise<string | null> {
    // beanstalkd ids are 64-bit; one past the exact integers (read as Infinity) names no job: no store call.
    if (!Number.isSafeInteger(number)) return null;
    const known = this.byNumber.get(number);
    if (known !== undefined) return known;
    const id = await this.numbers.idOf(number);
    if (id !== null) this.remember(id, number);
    return id;
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    try {
      const numbers = await this.numbers.numbersOf(batch.map((p) => p.id));
      batch.forEach((p, i) => {
        this.remember(p.id, numbers[i]!);
        p.resolve(numbers[i]!);
      });
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }

  private remember(id: string, number: number): void {
    if (this.byId.size >= MAX_ENTRIES) {
      this.byId.clear();
      this.byNumber.clear();
    }
    this.byId.set(id, number);
    this.byNumber.set(number, id);
  }
}
