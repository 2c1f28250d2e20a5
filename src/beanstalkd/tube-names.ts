import { TOPIC_RE } from '../core/limits.js';

/**
 * beanstalkd tube names are 1–200 bytes of letters, digits and `- + / ; . $ _ ( )`, not starting with `-`.
 * A tube is a delayq topic of the same name, so only names delayq's topic rule also admits are served
 * (letters, digits, `. _ - :`, as long as beanstalkd's, starting with a letter or digit); any other name is
 * refused with BAD_FORMAT, the answer beanstalkd gives to a name it cannot hold (docs/beanstalkd.md).
 */
export function isServableTube(name: string): boolean {
  return TOPIC_RE.test(name);
}
