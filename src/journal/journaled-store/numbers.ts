import type { AssignedNumber, JobNumbers, NumberedId } from '../../store/job-numbers.js';
import type { Journal } from '../journal.js';

/**
 * Job numbers over a journal: the inner store gives them, the journal records each before it is answered,
 * so a number a client holds still names the same job after the inner store lost its data. A restore puts
 * the recorded numbers back (recovery/restore.ts); until then a number the inner store lost is looked up in
 * the journal, and an id the inner store numbers anew takes its recorded number back.
 */
export class JournaledJobNumbers implements JobNumbers {
  private readonly inner: JobNumbers;
  private readonly journal: Journal;

  constructor(inner: JobNumbers, journal: Journal) {
    this.inner = inner;
    this.journal = journal;
  }

  async numbersOf(ids: readonly string[]): Promise<number[]> {
    return (await this.assign(ids)).map((a) => a.number);
  }

  async assign(ids: readonly string[]): Promise<AssignedNumber[]> {
    const assigned = await this.inner.assign(ids);
    const given = new Map<string, number>();
    assigned.forEach((a, i) => {
      if (a.given) given.set(ids[i]!, a.number);
    });
    if (!given.size) return assigned;
    const standing = await this.journal.claimNumbers([...given].map(([id, number]) => ({ id, number })));
    const back: NumberedId[] = [];
    for (const [id, number] of given) {
      const recorded = standing.get(id);
      if (recorded !== undefined && recorded !== number) back.push({ id, number: recorded });
    }
    if (!back.length) return assigned;
    // Numbered before the inner store lost its data: the recorded number is the job's, the new one is dropped.
    await this.inner.restore(back);
    const recorded = new Map(back.map((b) => [b.id, b.number]));
    return assigned.map((a, i) => {
      const number = recorded.get(ids[i]!);
      return number === undefined ? a : { number, given: false };
    });
  }

  async idOf(number: number): Promise<string | null> {
    return (await this.inner.idOf(number)) ?? this.journal.idOfNumber(number);
  }

  restore(numbers: readonly NumberedId[]): Promise<void> {
    return this.inner.restore(numbers);
  }
}
