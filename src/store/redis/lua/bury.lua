--[[ bury: reserved → dead, remembering the error; fenced by the reservation token.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] now (ms)  ARGV[5] node index
  ARGV[6] error ('\0' = none: the last error stays)  ARGV[7] priority ('' = unchanged)
  Returns: {OUTCOME_OK, record as stored} | loadReserved's refusal.
]]
local jobs, reserved, ended, counts, tp = KEYS[1], KEYS[3], KEYS[5], KEYS[6], ARGV[1]
local id, token, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local err = ARGV[6] ~= '\0' and ARGV[6] or false
local packed, h = loadReserved(jobs, id, token)
if not packed then return h end
now = stampAfter(h, now)
-- A new priority: a topic that holds a priority other than 0 is marked, as push.lua marks it.
if ARGV[7] ~= nil and ARGV[7] ~= '' then
  h.priority = tonumber(ARGV[7])
  if h.priority ~= 0 then redis.call('HSET', counts, h.topic .. '|prio', 1) end
end
h.state, h.token, h.deadline, h.finishedAt = STATE_DEAD, false, false, now
if err then h.lastError = err end
redis.call('ZREM', reserved, id)
if h.group then groupHeld(groupKeyPrefix(tp), h.topic, h.group, -1) end
logEnded(ended, now, { id })
redis.call('ZADD', tp .. 'dead:' .. h.topic, now, id)
redis.call('HINCRBY', counts, countOf(h.topic, STATE_RESERVED), -1)
redis.call('HINCRBY', counts, countOf(h.topic, STATE_DEAD), 1)
local rec = rewrite(packed, h, now, EVENT_BURY, err, node)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
