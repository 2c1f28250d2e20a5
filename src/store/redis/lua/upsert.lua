--[[ upsert: a push's onExists rule applied to the waiting job holding its id (core/push-on-exists.ts), after
  push.lua found the id taken: replace gives the job the push's body, due time and priority; extend moves its
  due time to the push's, never past maxWaitMs after its first push (createdAt). Like reschedule otherwise.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] the push's topic  ARGV[4] 'replace' | 'extend'
  ARGV[5] the push's runAt (ms)  ARGV[6] maxWaitMs (-1 = none)  ARGV[7] priority  ARGV[8] body (JSON text;
  replace only)  ARGV[9] now (ms)  ARGV[10] node index
  Returns: {OUTCOME_OK, record as stored} | {OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, record as stored}:
  a job reserved or ended, or of another topic, is left as it is (the push answers it kept).
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local id, pushTopic, mode = ARGV[2], ARGV[3], ARGV[4]
local runAt, maxWait, priority = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local now, node = tonumber(ARGV[9]), tonumber(ARGV[10])
local packed = redis.call('HGET', jobs, id)
if not packed then return { OUTCOME_NOT_FOUND } end
local h = readHead(packed)
local topic, old = h.topic, h.state
if topic ~= pushTopic or (old ~= STATE_DELAYED and old ~= STATE_READY) then return { OUTCOME_WRONG_STATE, packed } end
now = stampAfter(h, now)
if mode == 'extend' and maxWait >= 0 then runAt = math.min(runAt, h.createdAt + maxWait) end
local member = topic .. '#' .. h.bucket
local delayed = tp .. 'delayed:' .. member
if old == STATE_DELAYED then
  redis.call('ZREM', delayed, id)
  dueCount(topic, h.runAt, -1)
else
  readyRemove(tp, counts, h, id)
  redis.call('ZREM', expiry, id)
end
local rest = string.sub(packed, h.topicAt)
local event = EVENT_EXTEND
if mode == 'replace' then
  event = EVENT_REPLACE
  h.priority = priority
  -- The body's fields {tag, bizKey, body, retry}: the body is replaced, the others kept.
  local historyAt, fields = cmsgpack.unpack_one(packed, h.bodyAt - 1)
  fields[3] = ARGV[8]
  local history = historyAt < 0 and '' or string.sub(packed, historyAt + 1)
  rest = string.sub(packed, h.topicAt, h.bodyAt - 1) .. cmsgpack.pack(fields) .. history
  if priority ~= 0 then redis.call('HSET', counts, topic .. '|prio', 1) end
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
if state ~= old then
  redis.call('HINCRBY', counts, countOf(topic, old), -1)
  redis.call('HINCRBY', counts, countOf(topic, state), 1)
end
local rec = writeHead(h) .. rest .. entry(now, event, h.state, h.attempts, node, string.format('runAt=%d', runAt))
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
