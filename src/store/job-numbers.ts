/**
 * Integer job numbers for protocols that name jobs by an unsigned integer (beanstalkd). A number is
 * given to an id the first time one is asked for, atomically in the store (so every process on a shared
 * store agrees), and never changes or moves to another id afterwards, also when the store loses its data
 * (docs/beanstalkd.md, "Job numbers"). Numbers stay below 2^53, so JavaScript clients read them exactly.
 */
export interface JobNumbers {
  /** The number of each id, in order, giving the next numbers to ids that have none yet. */
  numbersOf(ids: readonly string[]): Promise<number[]>;
  /** As numbersOf, and whether this call gave each number (the id had none before). */
  assign(ids: readonly string[]): Promise<AssignedNumber[]>;
  /** The id a number was given to, or null. */
  idOf(number: number): Promise<string | null>;
  /**
   * Gives ids their numbers again after the store lost them (a restore from a journal): each id takes its
   * number, replacing one given since the loss. Numbers given by the store since the loss are all above
   * the ones it lost, so no number comes back to name another job.
   */
  restore(numbers: readonly NumberedId[]): Promise<void>;
}

export interface AssignedNumber {
  number: number;
  /** This call gave the number: the id had none. */
  given: boolean;
}

export interface NumberedId {
  id: string;
  number: number;
}
