/**
 * The Redis keys of schedules (docs/redis-store.md), apart from the job keys: one hash per deployment,
 * `<prefix>:{schedules}`: schedule name → JSON record. The hash tag keeps it in one Cluster slot.
 */
export function scheduleHashKey(prefix: string): string {
  return `${prefix}:{schedules}`;
}

/**
 * Compare-and-set of one schedule: writes ARGV[4] (or deletes the field when it is empty) only if the
 * stored record has revision ARGV[2] and cursor ARGV[3] (revision "0": only if there is none). 1 when written.
 */
export const SCHEDULE_CAS_SCRIPT = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '0' then
  if current then return 0 end
else
  if not current then return 0 end
  local record = cjson.decode(current)
  if tostring(record.revision) ~= ARGV[2] or string.format('%.0f', record.cursorAt) ~= ARGV[3] then return 0 end
end
if ARGV[4] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[4]) end
return 1
`;
