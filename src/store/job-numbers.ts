/**
 * Integer job numbers for protocols that name jobs by an unsigned integer (beanstalkd). A number is
 * given to an id the first time one is asked for, atomically in the store (so every process on a shared
 * store agrees), and never changes or moves to another id afterwards; numbers start at 1.
 */
export interface JobNumbers {
  /** The number of each id, in order, giving the next numbers to ids that have none yet. */
  numbersOf(ids: readonly string[]): Promise<number[]>;
  /** The id a number was given to, or null. */
  idOf(number: number): Promise<string | null>;
}
