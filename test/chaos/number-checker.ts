/**
 * Reads what the beanstalkd clients of the chaos suite saw (chaos-beanstalkd.ts) and reports every break of the
 * job numbers' promise (docs/beanstalkd.md): a number given to two puts, a reservation whose number named another
 * job than the put it was given to, and a job held by two connections at once (reserved again before the first
 * reservation's TTR ran out, without a delete in between).
 */
export interface NumberEvent {
  type: string;
  number: number;
  body?: string;
  at: number;
}

export interface NumberCheck {
  puts: number;
  reserves: number;
  deletes: number;
  givenTwice: number[];
  namedAnother: { number: number; put: string; reserved: string }[];
  heldTwice: number[];
}

/** `ttrMs` is the puts' TTR; `slackMs` covers the time between the server's reservation and the client's receipt. */
export function checkNumbers(events: readonly NumberEvent[], ttrMs: number, slackMs = 1000): NumberCheck {
  const bodyOf = new Map<number, string>();
  const givenTwice = new Set<number>();
  const namedAnother: NumberCheck['namedAnother'] = [];
  const heldTwice = new Set<number>();
  const heldSince = new Map<number, number>();
  const sorted = [...events].sort((a, b) => a.at - b.at);
  for (const e of sorted) {
    if (e.type === 'bput') {
      const known = bodyOf.get(e.number);
      if (known !== undefined && known !== e.body) givenTwice.add(e.number);
      else bodyOf.set(e.number, e.body!);
    } else if (e.type === 'breserve') {
      const put = bodyOf.get(e.number);
      if (put !== undefined && put !== e.body) namedAnother.push({ number: e.number, put, reserved: e.body! });
      const since = heldSince.get(e.number);
      if (since !== undefined && e.at - since < ttrMs - slackMs) heldTwice.add(e.number);
      heldSince.set(e.number, e.at);
    } else if (e.type === 'bdelete') heldSince.delete(e.number);
  }
  return {
    puts: events.filter((e) => e.type === 'bput').length,
    reserves: events.filter((e) => e.type === 'breserve').length,
    deletes: events.filter((e) => e.type === 'bdelete').length,
    givenTwice: [...givenTwice],
    namedAnother,
    heldTwice: [...heldTwice],
  };
}
