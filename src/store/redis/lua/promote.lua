--[[ promote: delayed → ready for this partition's earliest due jobs (runAt <= now), at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit  ARGV[4] node index
  ARGV[5] drain window (ms, '' = promote every due job)  ARGV[6] longest hold (ms)
  With a drain window, a topic without priorities (push.lua marks those with) whose consumers took jobs within that window (the `draining` hash, stamped
  by reserve.lua) keeps its due jobs delayed: its consumers reserve them straight from their delayed sets,
  one transition instead of two. Such a set is promoted anyway once its head has waited the longest hold.
  Returns: {count, dueHead, deadlineHead, expiryHead, topic1, topic2, …}: the topics that got ready jobs or
           have due jobs left to their consumers (waiters must wake for both), and afterwards the earliest
           runAt of a delayed job (or when a set left to consumers must be looked at again), TTR deadline
           and ttl expiry (nil = none), so a scheduler on one partition needs no other call to know when to
           wake next.
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local now, limit, node = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local drainWindow, hold = tonumber(ARGV[5]), tonumber(ARGV[6])
-- Sets left to a draining topic's consumers, by topic, and the earliest time one of them must be promoted.
local left, recheckAt, drainedAt = {}, false, {}
local leave
if drainWindow then
  leave = function(member, headAt)
    local topic = topicOfSet(member)
    local at = drainedAt[topic]
    if at == nil then
      -- A topic with priorities (push.lua) is always promoted: its ready set orders jobs by priority; so is
      -- a topic with groups: its lanes are how reserve keeps groups' limits (record.lua).
      at = not redis.call('HGET', counts, topic .. '|prio') and not holdsGroups(counts, topic)
        and tonumber(redis.call('HGET', tp .. 'draining', topic)) or false
      drainedAt[topic] = at
    end
    if not at or at + drainWindow <= now or headAt + hold <= now then return false end
    left[topic] = true
    local until_ = math.min(at + drainWindow, headAt + hold)
    -- The set's next job to come due: its due-index score stays at the due head until a consumer takes
    -- it, so no other head tells the scheduler to wake for that job.
    local later = redis.call('ZRANGE', tp .. 'delayed:' .. member, '(' .. int(now), '+inf', 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, 1)[2]
    if later then until_ = math.min(until_, tonumber(later)) end
    if not recheckAt or until_ < recheckAt then recheckAt = until_ end
    return true
  end
end
local ids, setOf = dueJobs(dueidx, tp, now, limit, leave)
-- Calls carry many members at once (one HMGET, one HSET, one ZREM per set, one ZADD per topic): a
-- redis.call per job and command cost more than the commands themselves. Chunks stay under Lua's
-- unpack limit.
local function call(command, key, args)
  for i = 1, #args, 4000 do redis.call(command, key, unpack(args, i, math.min(i + 3999, #args))) end
end
local taken = #ids
local packs = {}
for i = 1, taken, 4000 do
  local part = redis.call('HMGET', jobs, unpack(ids, i, math.min(i + 3999, taken)))
  for k = 1, #part do packs[#packs + 1] = part[k] end
end
local topics, out, leaving, arriving, withTtl, stored = {}, { 0, false, false, false }, {}, {}, {}, {}
local laned = {} -- lane (laneOf) → its arriving (priority, lane member) pairs, for topics with groups
local h = {} -- each job's head in turn
for i = 1, taken do
  local id, member = ids[i], setOf[i]
  local s = packs[i]
  readHead(s, h)
  local topic = h.topic
  h.state, h.readyAt = STATE_READY, now
  local gone = leaving[member] or {}
  leaving[member] = gone
  gone[#gone + 1] = id
  local ready = arriving[topic]
  if not ready then
    ready = {}
    arriving[topic] = ready
    out[#out + 1] = topic
  end
  local readyAs = readyMember(h, id)
  ready[#ready + 1] = h.priority
  ready[#ready + 1] = readyAs
  local lane = laneOf(counts, topic, h.group)
  if lane then
    local list = laned[lane]
    if not list then
      list = {}
      laned[lane] = list
      if h.group then redis.call('ZADD', groupKeyPrefix(tp) .. 'lanes:' .. topic, 0, h.group) end
    end
    list[#list + 1] = h.priority
    list[#list + 1] = laneMember(tp, readyAs)
  end
  if h.ttl then
    withTtl[#withTtl + 1] = int(h.runAt + h.ttl)
    withTtl[#withTtl + 1] = id
  end
  stored[#stored + 1] = id
  stored[#stored + 1] = rewrite(s, h, now, EVENT_PROMOTE, false, node)
  topics[topic] = (topics[topic] or 0) + 1
  dueCount(topic, h.runAt, -1)
end
out[1] = taken
for topic in pairs(left) do
  if not arriving[topic] then out[#out + 1] = topic end
end
call('HSET', jobs, stored)
for member, gone in pairs(leaving) do call('ZREM', tp .. 'delayed:' .. member, gone) end
for topic, ready in pairs(arriving) do call('ZADD', tp .. 'ready:' .. topic, ready) end
for lane, list in pairs(laned) do call('ZADD', groupKeyPrefix(tp) .. lane, list) end
call('ZADD', expiry, withTtl)
for topic, n in pairs(topics) do
  redis.call('HINCRBY', counts, countOf(topic, STATE_DELAYED), -n)
  redis.call('HINCRBY', counts, countOf(topic, STATE_READY), n)
end
dueFlush(tp)
for member in pairs(leaving) do refreshDueHead(dueidx, tp, member) end
if recheckAt then
  -- The sets left to consumers are due already: wake for the next set to come due, or to look again.
  local nextDue = redis.call('ZRANGE', dueidx, '(' .. int(now), '+inf', 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, 1)[2]
  out[2] = int(nextDue and math.min(tonumber(nextDue), recheckAt) or recheckAt)
else
  out[2] = redis.call('ZRANGE', dueidx, 0, 0, 'WITHSCORES')[2] or false
end
-- The reserved set's earliest deadline; its marker (reserve.lua) sits at +inf, past every deadline.
out[3] = redis.call('ZRANGE', KEYS[3], '-inf', '(+inf', 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, 1)[2] or false
out[4] = redis.call('ZRANGE', expiry, 0, 0, 'WITHSCORES')[2] or false
return out
