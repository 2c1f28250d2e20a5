--[[ run-now: delayed → ready at once, its runAt now (an operator's promotion, not the due time's).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] now (ms)  ARGV[4] node index  ARGV[5] history reason
  Returns: {OUTCOME_OK, record as stored} | {OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, state}.
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local id, now, node, reason = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local packed = redis.call('HGET', jobs, id)
if not packed then return { OUTCOME_NOT_FOUND } end
local h = readHead(packed)
if h.state ~= STATE_DELAYED then return { OUTCOME_WRONG_STATE, h.state } end
now = stampAfter(h, now)
local topic = h.topic
local member = topic .. '#' .. int(h.bucket)
local delayed = tp .. 'delayed:' .. member
redis.call('ZREM', delayed, id)
dueCount(topic, h.runAt, -1)
dueFlush(tp)
h.state, h.runAt, h.readyAt = STATE_READY, now, now
readyAdd(tp, counts, h, id)
if h.ttl then redis.call('ZADD', expiry, now + h.ttl, id) end
refreshDueHead(dueidx, tp, member)
redis.call('HINCRBY', counts, countOf(topic, STATE_DELAYED), -1)
redis.call('HINCRBY', counts, countOf(topic, STATE_READY), 1)
local rec = rewrite(packed, h, now, EVENT_PROMOTE, reason, node)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
