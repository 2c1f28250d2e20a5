--[[ reschedule: delayed | ready → delayed at runAt (ready at once when runAt <= now).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] runAt (ms)  ARGV[4] now (ms)  ARGV[5] node index
  Returns: {OUTCOME_OK, record as stored} | {OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, state}.
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local id, runAt, now, node = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local packed = redis.call('HGET', jobs, id)
if not packed then return { OUTCOME_NOT_FOUND } end
local h = readHead(packed)
now = stampAfter(h, now)
local topic, old = h.topic, h.state
local member = topic .. '#' .. int(h.bucket)
local delayed = tp .. 'delayed:' .. member
if old == STATE_DELAYED then
  redis.call('ZREM', delayed, id)
  dueCount(topic, h.runAt, -1)
elseif old == STATE_READY then
  readyRemove(tp, counts, h, id)
  redis.call('ZREM', expiry, id)
else
  return { OUTCOME_WRONG_STATE, old }
end
local state = runAt <= now and STATE_READY or STATE_DELAYED
h.state, h.runAt = state, runAt
if state == STATE_READY then
  h.readyAt = now
  readyAdd(tp, counts, h, id)
  if h.ttl then redis.call('ZADD', expiry, runAt + h.ttl, id) end
else
  h.readyAt = false
  redis.call('ZADD', delayed, runAt, id)
  dueCount(topic, runAt, 1)
end
dueFlush(tp)
refreshDueHead(dueidx, tp, member)
redis.call('HINCRBY', counts, countOf(topic, old), -1)
redis.call('HINCRBY', counts, countOf(topic, state), 1)
local rec = rewrite(packed, h, now, EVENT_RESCHEDULE, string.format('runAt=%d', runAt), node)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
