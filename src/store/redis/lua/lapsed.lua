--[[ lapsed: reservations whose TTR deadline is <= now, earliest first (read only).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit
  Returns: {id, topic, token, attempts, deadlineAt, retry, …} six entries per reservation.
]]
local jobs, reserved = KEYS[1], KEYS[3]
local out = {}
for _, id in ipairs(redis.call('ZRANGE', reserved, '-inf', ARGV[2], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]))) do
  local packed = redis.call('HGET', jobs, id)
  if packed then
    local h = readHead(packed)
    for _, v in ipairs({ id, h.topic, h.token, h.attempts, h.deadline, readBody(packed, h)[4] }) do out[#out + 1] = v end
  end
end
return out
