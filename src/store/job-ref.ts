/** A job named by a transition that changed several at once (expireDue, a bulk cancel), for its event. */
export interface JobRef {
  id: string;
  topic: string;
}
