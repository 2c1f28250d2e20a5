--[[ bury: reserved → dead, remembering the error; fenced by the reservation token.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] now (ms)  ARGV[5] node index
  ARGV[6] error ('\0' = none: the last error stays)  ARGV[7] priority ('' = unchanged)
  Returns: {0, record as stored} | {-1} not found | {-2, state} not reserved | {-3, 3} token mismatch.
]]
local jobs, reserved, ended, counts, tp = KEYS[1], KEYS[3], KEYS[5], KEYS[6], ARGV[1]
local id, token, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local err = ARGV[6] ~= '\0' and ARGV[6] or false
local packed = redis.call('HGET', jobs, id)
if not packed then return { -1 } end
local h = readHead(packed)
now = stampAfter(h, now)
if h.state ~= 3 then return { -2, h.state } end
if h.token ~= token then return { -3, 3 } end
-- A new priority: a topic that holds a priority other than 0 is marked, as push.lua marks it.
if ARGV[7] ~= nil and ARGV[7] ~= '' then
  h.priority = tonumber(ARGV[7])
  if h.priority ~= 0 then redis.call('HSET', counts, h.topic .. '|prio', 1) end
end
h.state, h.token, h.deadline, h.finishedAt = 5, false, false, now
if err then h.lastError = err end
redis.call('ZREM', reserved, id)
logEnded(ended, now, { id })
redis.call('ZADD', tp .. 'dead:' .. h.topic, now, id)
redis.call('HINCRBY', counts, h.topic .. '|3', -1)
redis.call('HINCRBY', counts, h.topic .. '|5', 1)
local rec = rewrite(packed, h, now, 7, err, node)
redis.call('HSET', jobs, id, rec)
return { 0, rec }
