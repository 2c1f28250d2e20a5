/** How the embedded SQLite store is opened (config.ts's `sqlite` options fill it). */
export interface SqliteStoreOptions {
  /** Database file, or ':memory:'. @defaultValue ./data/delayq.db (set by config) */
  path: string;
  /** Name of this process in job history. */
  nodeId: string;
  /**
   * SQLite `synchronous`: NORMAL (default) survives a process crash (kill -9) with WAL;
   * FULL also survives power loss, at the cost of an fsync per commit.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /**
   * The WAL's bound in bytes: past it the store starts the WAL over with a RESTART checkpoint between two of
   * its transactions, and cuts the file back to it (checkpointer.ts). @defaultValue 64 MiB
   */
  walTruncateBytes?: number;
  /**
   * SQLite's page cache in MiB (`cache_size`): a backlog whose indexes outgrow it makes every push read pages
   * from the file (the OS cache at best). @defaultValue 256
   */
  cacheMb?: number;
  /** Job events kept in memory for followers to resume from. @defaultValue config's events.maxLength */
  eventsMaxLength?: number;
}
