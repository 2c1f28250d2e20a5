/**
 * The calls of one event-loop turn gathered into one call of a batch form: concurrent requests (each its own
 * connection, each read in its own callback of the loop's poll phase) meet at the turn's end (setImmediate) and
 * go to the store as one call, at most `maxItems` at a time. `send` answers one entry per item, in order; a
 * rejected `send` rejects every caller of that call with its error, as each would have been alone.
 */
export class TurnBatch<Item, Answer> {
  private pending: { item: Item; resolve: (answer: Answer) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;
  private readonly send: (items: readonly Item[]) => Promise<readonly Answer[]>;
  private readonly maxItems: number;

  constructor(send: (items: readonly Item[]) => Promise<readonly Answer[]>, maxItems: number) {
    this.send = send;
    this.maxItems = maxItems;
  }

  /** Resolves with this item's answer once the call it joined is answered. */
  add(item: Item): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxItems) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushAtTurnEnd);
      }
    });
  }

  private readonly flushAtTurnEnd = (): void => {
    this.scheduled = false;
    this.flush();
  };

  private flush(): void {
    const batch = this.pending;
    if (!batch.length) return;
    this.pending = [];
    let sent: Promise<readonly Answer[]>;
    try {
      sent = this.send(batch.map((p) => p.item));
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.then(
      (answers) => {
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(answers[i]!);
      },
      (err: unknown) => {
        for (const p of batch) p.reject(err);
      },
    );
  }
}
