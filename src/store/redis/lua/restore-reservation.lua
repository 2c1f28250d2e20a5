--[[ restore-reservation: delayed | ready | reserved → reserved under a given token, deadline and attempts: a
  reservation the store lost (a wipe, a failover) put back as the journal knows it, so its holder can still
  settle it and nobody else gets the job before the deadline. A job reserved under that token already is
  answered as it is.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] now (ms)  ARGV[4] token  ARGV[5] reservedAt (ms)
  ARGV[6] deadlineAt (ms)  ARGV[7] attempts  ARGV[8] node index  ARGV[9] runAt (ms): the job's own (a restore
  pushes such a job delayed until its deadline, so no consumer takes it before this script runs)
  ARGV[10] the token of the reservation this one may replace ('' none): another holder's is never taken
  Returns: {OUTCOME_OK, record as stored} | {OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, state}: it ended
  | {OUTCOME_TOKEN_MISMATCH, STATE_RESERVED}: reserved under a token other than ARGV[10].
]]
local jobs, dueidx, reserved, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local id, now, token, node = ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[8])
local packed = redis.call('HGET', jobs, id)
if not packed then return { OUTCOME_NOT_FOUND } end
local h = readHead(packed)
local old, topic = h.state, h.topic
if old ~= STATE_READY and old ~= STATE_DELAYED and old ~= STATE_RESERVED then return { OUTCOME_WRONG_STATE, old } end
if old == STATE_RESERVED and h.token == token then return { OUTCOME_OK, packed } end
if old == STATE_RESERVED and h.token ~= ARGV[10] then return { OUTCOME_TOKEN_MISMATCH, STATE_RESERVED } end
now = stampAfter(h, now)
if old == STATE_DELAYED then
  local member = topic .. '#' .. int(h.bucket)
  local set = tp .. 'delayed:' .. member
  redis.call('ZREM', set, id)
  refreshDueHead(dueidx, tp, member)
  dueCount(topic, h.runAt, -1)
  dueFlush(tp)
elseif old == STATE_READY then
  readyRemove(tp, counts, h, id)
  redis.call('ZREM', expiry, id)
end
h.state, h.token, h.attempts = STATE_RESERVED, token, tonumber(ARGV[7])
h.reservedAt, h.deadline, h.runAt = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[9])
h.readyAt = h.readyAt or h.reservedAt
redis.call('ZADD', reserved, h.deadline, id)
if old ~= STATE_RESERVED then
  if h.group then groupHeld(groupKeyPrefix(tp), topic, h.group, 1) end
  redis.call('HINCRBY', counts, countOf(topic, old), -1)
  redis.call('HINCRBY', counts, countOf(topic, STATE_RESERVED), 1)
end
local rec = rewrite(packed, h, now, EVENT_RESTORE, 'reservation restored from the journal', node)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
