--[[ reserve-job: ready | delayed | dead → reserved, one job by id (the beanstalkd protocol's reserve-job). A
  delayed job is promoted and a dead one redriven (attempts reset) at the same instant, as its history shows.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] now (ms)  ARGV[4] TTR override (ms, '' = the job's own)
  ARGV[5] node index  ARGV[6] token
  Returns: {OUTCOME_OK, record as stored} | {OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, state}: not ready,
  delayed or dead, or its ttl ran out.
]]
local jobs, dueidx, reserved, expiry, ended, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local id, now, node, token = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[5]), ARGV[6]
local ttr = ARGV[4] ~= '' and tonumber(ARGV[4]) or nil
local packed = redis.call('HGET', jobs, id)
if not packed then return { OUTCOME_NOT_FOUND } end
local h = readHead(packed)
local old, topic = h.state, h.topic
if old ~= STATE_READY and old ~= STATE_DELAYED and old ~= STATE_DEAD then return { OUTCOME_WRONG_STATE, old } end
now = stampAfter(h, now)
-- A ready or delayed job whose ttl ran out is the scheduler's to expire, never handed out.
if old ~= STATE_DEAD and h.ttl and math.min(h.runAt, now) + h.ttl <= now then return { OUTCOME_WRONG_STATE, old } end
local before = ''
if old == STATE_DELAYED then
  local member = topic .. '#' .. int(h.bucket)
  local set = tp .. 'delayed:' .. member
  redis.call('ZREM', set, id)
  refreshDueHead(dueidx, tp, member)
  dueCount(topic, h.runAt, -1)
  dueFlush(tp)
  h.runAt, h.readyAt = math.min(h.runAt, now), now
  before = entry(now, EVENT_PROMOTE, STATE_READY, h.attempts, node, false)
elseif old == STATE_READY then
  readyRemove(tp, counts, h, id)
  redis.call('ZREM', expiry, id)
else
  -- Its entry in the ended log stays: purge skips a job that is no longer terminal (redrive.lua).
  redis.call('ZREM', ended, id)
  redis.call('ZREM', tp .. 'dead:' .. topic, id)
  h.runAt, h.attempts, h.readyAt, h.finishedAt = now, 0, now, false
  before = entry(now, EVENT_REDRIVE, STATE_READY, 0, node, false)
end
h.state, h.attempts, h.token, h.deadline, h.reservedAt = STATE_RESERVED, h.attempts + 1, token, now + (ttr or h.ttr), now
redis.call('ZADD', reserved, h.deadline, id)
if h.group then groupHeld(groupKeyPrefix(tp), topic, h.group, 1) end
redis.call('HINCRBY', counts, countOf(topic, old), -1)
redis.call('HINCRBY', counts, countOf(topic, STATE_RESERVED), 1)
local rec = writeHead(h) .. string.sub(packed, h.topicAt) .. before .. entry(now, EVENT_RESERVE, STATE_RESERVED, h.attempts, node, false)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
