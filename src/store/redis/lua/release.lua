--[[ release: reserved → ready (or delayed at runAt when runAt > now), giving the attempt back; token-fenced.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] now (ms)  ARGV[5] node index
  ARGV[6] runAt (ms, '' = ready at once at the job's own runAt)  ARGV[7] priority ('' = unchanged)
  ARGV[8] the history entry's reason ('' = this script's own: how the job came back)
  Returns: {OUTCOME_OK, record as stored} | loadReserved's refusal.
]]
local jobs, dueidx, reserved, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local id, token, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local runAt = ARGV[6] ~= nil and ARGV[6] ~= '' and tonumber(ARGV[6]) or nil
local packed, h = loadReserved(jobs, id, token)
if not packed then return h end
now = stampAfter(h, now)
-- A new priority: a topic that holds a priority other than 0 is marked, as push.lua marks it.
if ARGV[7] ~= nil and ARGV[7] ~= '' then
  h.priority = tonumber(ARGV[7])
  if h.priority ~= 0 then redis.call('HSET', counts, h.topic .. '|prio', 1) end
end
local delayed = runAt ~= nil and runAt > now
local state = delayed and STATE_DELAYED or STATE_READY
h.state, h.attempts, h.token, h.deadline = state, math.max(h.attempts - 1, 0), false, false
redis.call('ZREM', reserved, id)
if h.group then groupHeld(groupKeyPrefix(tp), h.topic, h.group, -1) end
local reason = 'consumer gone before delivery'
if delayed then
  h.runAt, h.readyAt, reason = runAt, false, 'released until ' .. runAt
  local member = h.topic .. '#' .. int(h.bucket)
  redis.call('ZADD', tp .. 'delayed:' .. member, runAt, id)
  lowerDueHead(dueidx, tp, member, runAt)
  dueCount(h.topic, runAt, 1)
  dueFlush(tp)
else
  if runAt ~= nil then h.runAt, reason = runAt, 'released' end
  readyAdd(tp, counts, h, id)
  if h.ttl then redis.call('ZADD', expiry, h.runAt + h.ttl, id) end
end
if ARGV[8] ~= nil and ARGV[8] ~= '' then reason = ARGV[8] end
redis.call('HINCRBY', counts, countOf(h.topic, STATE_RESERVED), -1)
redis.call('HINCRBY', counts, countOf(h.topic, state), 1)
local rec = rewrite(packed, h, now, EVENT_RELEASE, reason, node)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
