--[[ retry: reserved → delayed at runAt (ready when runAt <= now), remembering the error; token-fenced.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] runAt (ms)  ARGV[5] now (ms)
  ARGV[6] node index  ARGV[7] error ('\0' = none: the last error stays)
  Returns: {OUTCOME_OK, record as stored} | loadReserved's refusal.
]]
local jobs, dueidx, reserved, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local id, token, runAt, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local err = ARGV[7] ~= '\0' and ARGV[7] or false
local packed, h = loadReserved(jobs, id, token)
if not packed then return h end
now = stampAfter(h, now)
local topic = h.topic
local state = runAt <= now and STATE_READY or STATE_DELAYED
h.state, h.runAt, h.token, h.deadline = state, runAt, false, false
if err then h.lastError = err end
redis.call('ZREM', reserved, id)
if h.group then groupHeld(groupKeyPrefix(tp), topic, h.group, -1) end
if state == STATE_READY then
  h.readyAt = now
  readyAdd(tp, counts, h, id)
  if h.ttl then redis.call('ZADD', expiry, runAt + h.ttl, id) end
else
  h.readyAt = false
  local member = topic .. '#' .. int(h.bucket)
  redis.call('ZADD', tp .. 'delayed:' .. member, runAt, id)
  lowerDueHead(dueidx, tp, member, runAt)
  dueCount(topic, runAt, 1)
  dueFlush(tp)
end
redis.call('HINCRBY', counts, countOf(topic, STATE_RESERVED), -1)
redis.call('HINCRBY', counts, countOf(topic, state), 1)
local rec = rewrite(packed, h, now, EVENT_RETRY, err, node)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
