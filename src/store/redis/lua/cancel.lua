--[[ cancel: delayed | ready | reserved → cancelled.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] now (ms)  ARGV[4] node index  ARGV[5] reason ('\0' = none)
  Returns: {OUTCOME_OK, record as stored, state before} (STATE_RESERVED: it was out with a consumer or a
           sink) | {OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, state}.
]]
local jobs, dueidx, reserved, expiry, ended, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local id, now, node = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local packed = redis.call('HGET', jobs, id)
if not packed then return { OUTCOME_NOT_FOUND } end
local h = readHead(packed)
now = stampAfter(h, now)
local topic, state = h.topic, h.state
if state == STATE_DELAYED then
  local member = topic .. '#' .. h.bucket
  local delayed = tp .. 'delayed:' .. member
  redis.call('ZREM', delayed, id)
  refreshDueHead(dueidx, tp, member)
  dueCount(topic, h.runAt, -1)
  dueFlush(tp)
elseif state == STATE_READY then
  readyRemove(tp, counts, h, id)
  redis.call('ZREM', expiry, id)
elseif state == STATE_RESERVED then
  redis.call('ZREM', reserved, id)
  if h.group then groupHeld(groupKeyPrefix(tp), topic, h.group, -1) end
else
  return { OUTCOME_WRONG_STATE, state }
end
h.state, h.token, h.deadline, h.finishedAt = STATE_CANCELLED, false, false, now
logEnded(ended, now, { id })
redis.call('HINCRBY', counts, countOf(topic, state), -1)
redis.call('HINCRBY', counts, countOf(topic, STATE_CANCELLED), 1)
local reason = ARGV[5] ~= '\0' and ARGV[5] or false
local rec = rewrite(packed, h, now, EVENT_CANCEL, reason, node)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec, state }
