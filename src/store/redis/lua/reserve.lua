--[[ reserve: ready → reserved for up to ARGV[3] jobs of the given topics, in the ready order (priority,
  runAt, createdAt, id: src/store/ready-order.ts). First it expires ready jobs whose ttl ran out
  (expire-due.lua), so none is handed out. A topic without priorities (push.lua marks the others) may also
  have due jobs the promoter has not moved (it leaves a draining topic's due jobs to its consumers:
  promote.lua): those are taken straight from their delayed sets, merged with the ready ones in the same
  order, each recorded as promoted and reserved at the same instant. The topics that got jobs are stamped
  in the `draining` hash.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] max jobs  ARGV[4] TTR override (ms, '' = the job's own)
  ARGV[5] node index  ARGV[6] n topics, then the topics, then a token base (16 random hex digits from the
  client): the i-th job reserved by this call gets token base .. %08x(i), unique and unguessable per call
  Returns: {{id1, packed record1, id2, packed record2, …}, {id, topic, id, topic, …}}: the jobs reserved (the
  records as stored; empty when nothing is ready), and the jobs expired on the way (for their events).
  Topics with group limits go to reserve-groups.lua instead; here a job of a group is counted as its group's
  and leaves its lane (record.lua), as every reservation does.
]]
local jobs, reserved, expiry, counts, tp = KEYS[1], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
-- Ttl expiries handled per call before reserving; more (a rare pile-up) are left to the scheduler's expire,
-- and any such job met below is passed over.
local EXPIRE_AT_RESERVE = 1000
local now, max, node, nt = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])
local ttr = ARGV[4] ~= '' and tonumber(ARGV[4]) or nil
local expired = expireDue(KEYS, tp, now, EXPIRE_AT_RESERVE, node)
-- Candidates: ids[i], and for a ready one its set and member, for a due delayed one its delayed set.
local ids, setOf, memberOf, dueSetOf = {}, {}, {}, {}
local sources, seen, dueTopics, anyDue = 0, {}, {}, false
-- Due delayed jobs are looked for up to this time: with one topic whose ready set fills the call, only
-- those due before its last candidate could come first (priority 0 all: a topic with priorities takes none).
local dueUpTo = now
for t = 1, nt do
  local topic = ARGV[6 + t]
  local key = tp .. 'ready:' .. topic
  if not seen[key] then -- a topic named twice is read once, so each job is reserved once
    seen[key] = true
    -- A set answers in the ready order already (score: priority; member: runAt, createdAt, id).
    local members = redis.call('ZRANGE', key, 0, max - 1)
    if #members > 0 then sources = sources + 1 end
    if nt == 1 and #members >= max then dueUpTo = math.min(now, struct.unpack('>i6', members[#members]) - 1) end
    for i = 1, #members do
      local n = #ids + 1
      ids[n], setOf[n], memberOf[n] = string.sub(members[i], READY_ID_AT), key, members[i]
    end
    -- A topic with priorities or groups has its due jobs promoted first (promote.lua). Both marks in one read,
    -- the groups mark kept for laneOf below (record.lua).
    local marks = redis.call('HMGET', counts, topic .. '|prio', topic .. '|grp')
    topicHoldsGroups[topic] = marks[2] and true or false
    if not marks[1] and not marks[2] then
      dueTopics[topic], anyDue = true, true
    end
  end
end
-- Then due jobs still delayed, of the topics without priorities (all 0, so the order is runAt, then
-- arrival). A few more than needed are read, in case some must be passed over (a lapsed ttl).
if anyDue then
  local dueIds, dueSets = dueJobs(KEYS[2], tp, dueUpTo, max + 8, function(member) return not dueTopics[topicOfSet(member)] end)
  if #dueIds > 0 then sources = sources + 1 end
  for i = 1, #dueIds do
    local n = #ids + 1
    ids[n], dueSetOf[n] = dueIds[i], dueSets[i]
  end
end
if #ids == 0 then return {{}, expired} end
local packs = redis.call('HMGET', jobs, unpack(ids))
-- Several sources (topics, or ready and due jobs) are merged in the ready order; one is in order already.
local order, heads = {}, nil
for i = 1, #ids do order[i] = i end
if sources > 1 then
  heads = {}
  for i = 1, #ids do heads[i] = packs[i] and readHead(packs[i]) or false end
  table.sort(order, readyOrder(heads, ids))
end
-- Many members a call (one HSET, one ZREM per set, one ZADD): a redis.call per job and command costs more
-- than the command itself. At most 100 jobs, under Lua's unpack limit.
local out, tokenBase, moved, deadlines, stored, withTtl = {}, ARGV[7 + nt], {}, {}, {}, {}
local fromDelayed, delayedGone, leaving = {}, {}, {}
local laneGone, heldBy = {}, {} -- lane (laneOf) → lane members taken; topic → group → jobs taken
local h = {} -- each job's head in turn (when not read for the merge)
local taken = 0
for _, i in ipairs(order) do
  if taken >= max then break end
  local id, s, dueSet = ids[i], packs[i], dueSetOf[i]
  if s then
    if heads then h = heads[i] else readHead(s, h) end
    -- A job whose ttl ran out is never handed out (expired above, or left to the scheduler); nor a job
    -- that is not in the state its set says (defensive).
    if h.state == (dueSet and STATE_DELAYED or STATE_READY) and not (h.ttl and h.runAt + h.ttl <= now) then
      taken = taken + 1
      -- Not before the job was due (runAt may come from another process's clock too).
      local at = math.max(stampAfter(h, now), h.runAt)
      local deadline = at + (ttr or h.ttr)
      local attempt = h.attempts
      h.state, h.attempts, h.token, h.deadline, h.reservedAt = STATE_RESERVED, attempt + 1, tokenBase .. string.format('%08x', taken), deadline, at
      deadlines[#deadlines + 1] = int(deadline)
      deadlines[#deadlines + 1] = id
      moved[h.topic] = (moved[h.topic] or 0) + 1
      local packed
      if dueSet then
        -- Promoted and reserved at one instant: the history shows both, as if the promoter had run first.
        h.readyAt = at
        packed = writeHead(h) .. string.sub(s, h.topicAt) .. entry(at, EVENT_PROMOTE, STATE_READY, attempt, node, false)
          .. entry(at, EVENT_RESERVE, STATE_RESERVED, h.attempts, node, false)
        fromDelayed[h.topic] = (fromDelayed[h.topic] or 0) + 1
        dueCount(h.topic, h.runAt, -1)
        local gone = delayedGone[dueSet] or {}
        delayedGone[dueSet] = gone
        gone[#gone + 1] = id
      else
        if h.ttl then withTtl[#withTtl + 1] = id end
        packed = rewrite(s, h, at, EVENT_RESERVE, false, node)
        local gone = leaving[setOf[i]] or {}
        leaving[setOf[i]] = gone
        gone[#gone + 1] = memberOf[i]
        local lane = laneOf(counts, h.topic, h.group)
        if lane then
          local members = laneGone[lane] or {}
          laneGone[lane] = members
          members[#members + 1] = laneMember(tp, memberOf[i])
        end
      end
      if h.group then
        local groups = heldBy[h.topic] or {}
        heldBy[h.topic] = groups
        groups[h.group] = (groups[h.group] or 0) + 1
      end
      stored[#stored + 1] = id
      stored[#stored + 1] = packed
      out[#out + 1] = id
      out[#out + 1] = packed
    end
  end
end
if #out == 0 then return {out, expired} end
for key, gone in pairs(leaving) do redis.call('ZREM', key, unpack(gone)) end
if next(laneGone) or next(heldBy) then leaveLanes(groupKeyPrefix(tp), laneGone, heldBy) end
-- The marker (a member over 64 bytes) keeps the reserved set a skiplist: as a listpack each ZADD would scan
-- and reallocate the whole set. Its score, +inf, keeps it out of every deadline query.
redis.call('ZADD', reserved, '+inf', RESERVED_MARKER, unpack(deadlines))
redis.call('HSET', jobs, unpack(stored))
if #withTtl > 0 then redis.call('ZREM', expiry, unpack(withTtl)) end
for member, gone in pairs(delayedGone) do
  local set = tp .. 'delayed:' .. member
  redis.call('ZREM', set, unpack(gone))
  refreshDueHead(KEYS[2], tp, member)
end
local stamp = int(now)
for topic, n in pairs(moved) do
  local delayed = fromDelayed[topic] or 0
  if n > delayed then redis.call('HINCRBY', counts, countOf(topic, STATE_READY), delayed - n) end
  if delayed > 0 then redis.call('HINCRBY', counts, countOf(topic, STATE_DELAYED), -delayed) end
  redis.call('HINCRBY', counts, countOf(topic, STATE_RESERVED), n)
  redis.call('HSET', tp .. 'draining', topic, stamp)
end
dueFlush(tp)
return {out, expired}
