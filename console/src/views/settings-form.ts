import { useEffect, useRef, useState } from 'preact/hooks';

/** A number typed in, or the text itself when it is not a number, so that the API names what is wrong. */
export const numberOrText = (value: string): number | string | undefined => {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : trimmed;
};

/**
 * A form field that starts from the setting in force and follows it when it changes (a save, another node's
 * change); only then, so what was typed before the first effect ran is kept. `key` names the setting's source
 * (the topic).
 */
export function useFollowedField(key: string, inForce: string): [string, (value: string) => void] {
  const [value, setValue] = useState(inForce);
  const followed = useRef(`${key}|${inForce}`);
  useEffect(() => {
    if (followed.current === `${key}|${inForce}`) return;
    followed.current = `${key}|${inForce}`;
    setValue(inForce);
  }, [key, inForce]);
  return [value, setValue];
}
