/** Tubes remembered by when they were made (see made()). */
const MAX_REMEMBERED = 10_000;

/**
 * The order list-tubes answers in: beanstalkd's, the order tubes were made, `default` first. When a tube
 * ceases to exist beanstalkd moves the last tube into its place (its tube list is an array, and removal fills
 * the gap with the last element), and so does this. A tube this process did not see made (pushed over HTTP,
 * or by another process) takes its place when first listed, those of one listing by name.
 */
export class TubeOrder {
  private readonly tubes: string[] = ['default'];
  private readonly known = new Set<string>(this.tubes);

  /** A tube made here (used or watched for the first time). */
  made(tube: string): void {
    // Tubes that cease to exist are found out when listed: until then, past this many, a new one waits to be
    // listed for its place (by name), so a process that is never asked keeps a bounded list.
    if (this.known.has(tube) || this.tubes.length >= MAX_REMEMBERED) return;
    this.tubes.push(tube);
    this.known.add(tube);
  }

  /** A tube that ceased to exist: the last tube moves into its place. */
  gone(tube: string): void {
    if (!this.known.delete(tube)) return;
    const at = this.tubes.indexOf(tube);
    const last = this.tubes.pop()!;
    if (at < this.tubes.length) this.tubes[at] = last;
  }

  /** The tubes that exist, in order: those that no longer do are dropped, those not seen yet appended. */
  ordered(live: ReadonlySet<string>): string[] {
    for (const tube of [...this.tubes]) if (!live.has(tube)) this.gone(tube);
    for (const tube of [...live].filter((t) => !this.known.has(t)).sort()) {
      this.tubes.push(tube);
      this.known.add(tube);
    }
    return [...this.tubes];
  }
}
