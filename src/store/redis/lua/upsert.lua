--[[ upsert: pushes' onExists rules applied to the waiting jobs holding their ids (core/push-on-exists.ts),
  after push.lua found the ids taken: replace gives the job the push's body, due time and priority; extend
  moves its due time to the push's, never past maxWaitMs after its first push (createdAt). Like reschedule
  otherwise. The pushes of one partition go in one call, in the order pushed: each sees the one before.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] node index
  ARGV[4…] 7 per push: id, the push's topic, 'replace' | 'extend', the push's runAt (ms), maxWaitMs (-1 = none),
  priority, body (JSON text; replace only)
  Returns: 2 per push: OUTCOME_OK, record as stored | OUTCOME_NOT_FOUND, false | OUTCOME_WRONG_STATE, record as
  stored: a job reserved or ended, or of another topic, is left as it is (the push answers it kept).
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local callNow, node = tonumber(ARGV[2]), tonumber(ARGV[3])
local heads = {} -- delayed sets whose head may have moved: refreshed once, after every push

local function upsert(id, pushTopic, mode, runAt, maxWait, priority, body)
  local packed = redis.call('HGET', jobs, id)
  if not packed then return OUTCOME_NOT_FOUND, false end
  local h = readHead(packed)
  local topic, old = h.topic, h.state
  if topic ~= pushTopic or (old ~= STATE_DELAYED and old ~= STATE_READY) then return OUTCOME_WRONG_STATE, packed end
  local now = stampAfter(h, callNow)
  if mode == 'extend' and maxWait >= 0 then runAt = math.min(runAt, h.createdAt + maxWait) end
  local member = topic .. '#' .. int(h.bucket)
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
    fields[3] = body
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
  heads[member] = true
  if state ~= old then
    redis.call('HINCRBY', counts, countOf(topic, old), -1)
    redis.call('HINCRBY', counts, countOf(topic, state), 1)
  end
  local rec = writeHead(h) .. rest .. entry(now, event, h.state, h.attempts, node, string.format('runAt=%d', runAt))
  redis.call('HSET', jobs, id, rec)
  return OUTCOME_OK, rec
end

local out = {}
for i = 4, #ARGV, 7 do
  local code, rec = upsert(ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4]),
    tonumber(ARGV[i + 5]), ARGV[i + 6])
  out[#out + 1] = code
  out[#out + 1] = rec
end
dueFlush(tp)
for member in pairs(heads) do refreshDueHead(dueidx, tp, member) end
return out
