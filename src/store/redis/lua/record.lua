--[[ record: the shared Lua half of the prelude (scripts.ts puts it after the generated constants, at the
  top of each script): the record codec, the fenced load of a reserved job, and the ready-set member.
  The layout is defined in record-layout.ts; the formats here write its widths out (times are i6, an
  error's length I4, a token's and the topic's length B) and name every state, event and flag by its
  constant.
  A transition reads the head, writes a new one and appends a history entry, copying the topic, body and
  history as bytes: it never decodes the body.
]]

-- The head of a drained job while reserved (readyAt and reservedAt, no ttl, no error) and once finished
-- (plus finishedAt): the common heads, each read and written in one struct call.
local RESERVED_FLAGS = STATE_RESERVED + FLAG_READY_AT + FLAG_RESERVED_AT
local RESERVED_HEAD = HEAD .. 'i6i6i6Bc0'
local FINISHED_FLAGS = STATE_FINISHED + FLAG_READY_AT + FLAG_RESERVED_AT + FLAG_FINISHED_AT
local FINISHED_HEAD = HEAD .. 'i6i6i6Bc0'

-- A job with a group stores `topic/group` where the topic goes (neither holds a '/'): h.topic and h.group
-- (false: none) from it. The field is copied as bytes, so the group stays with the job.
local function splitGroup(h)
  local cut = string.find(h.topic, '/', 1, true)
  if cut then
    h.topic, h.group = string.sub(h.topic, 1, cut - 1), string.sub(h.topic, cut + 1)
  else
    h.group = false
  end
  return h
end

local function readReservedHead(s, h)
  local _, pos
  _, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket, h.readyAt, h.reservedAt, h.deadline, h.token, pos =
    struct.unpack(RESERVED_HEAD, s)
  h.state, h.ttl, h.finishedAt, h.lastError, h.topicAt = STATE_RESERVED, false, false, false, pos
  h.topic, h.bodyAt = struct.unpack('>Bc0', s, pos)
  return splitGroup(h)
end

-- The head's fields, into h (a table the script reuses for each job of a batch) or a new table; absent
-- fields are false. h.topicAt is where the topic starts, h.bodyAt where the body starts.
local function readHead(s, h)
  h = h or {}
  if string.byte(s, 1) == RESERVED_FLAGS then return readReservedHead(s, h) end
  local b, pos
  b, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket, pos = struct.unpack(HEAD, s)
  local state = b % STATE_MOD
  h.state, h.ttl, h.readyAt, h.reservedAt, h.finishedAt, h.deadline, h.token, h.lastError =
    state, false, false, false, false, false, false, false
  if b ~= state then
    if bit.band(b, FLAG_TTL_MS) ~= 0 then h.ttl, pos = struct.unpack(TIME, s, pos) end
    if bit.band(b, FLAG_READY_AT) ~= 0 then h.readyAt, pos = struct.unpack(TIME, s, pos) end
    if bit.band(b, FLAG_RESERVED_AT) ~= 0 then h.reservedAt, pos = struct.unpack(TIME, s, pos) end
    if bit.band(b, FLAG_FINISHED_AT) ~= 0 then h.finishedAt, pos = struct.unpack(TIME, s, pos) end
    if bit.band(b, FLAG_LAST_ERROR) ~= 0 then h.lastError, pos = struct.unpack('>I4c0', s, pos) end
  end
  if state == STATE_RESERVED then
    h.deadline, h.token, pos = struct.unpack('>i6Bc0', s, pos)
  elseif state == STATE_FINISHED then
    h.token, pos = struct.unpack('>Bc0', s, pos)
  end
  h.topicAt = pos
  h.topic, h.bodyAt = struct.unpack('>Bc0', s, pos)
  return splitGroup(h)
end

-- The head up to the topic, for h's fields (false = absent); deadline only while reserved, token while
-- reserved or finished.
local function writeHead(h)
  if not h.ttl and not h.lastError and h.readyAt and h.reservedAt then
    if h.state == STATE_RESERVED and not h.finishedAt then
      return struct.pack(RESERVED_HEAD, RESERVED_FLAGS, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket,
        h.readyAt, h.reservedAt, h.deadline, #h.token, h.token)
    elseif h.state == STATE_FINISHED and h.finishedAt then
      local token = h.token or ''
      return struct.pack(FINISHED_HEAD, FINISHED_FLAGS, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket,
        h.readyAt, h.reservedAt, h.finishedAt, #token, token)
    end
  end
  local flags, opt = h.state, ''
  if h.ttl then flags, opt = flags + FLAG_TTL_MS, opt .. struct.pack(TIME, h.ttl) end
  if h.readyAt then flags, opt = flags + FLAG_READY_AT, opt .. struct.pack(TIME, h.readyAt) end
  if h.reservedAt then flags, opt = flags + FLAG_RESERVED_AT, opt .. struct.pack(TIME, h.reservedAt) end
  if h.finishedAt then flags, opt = flags + FLAG_FINISHED_AT, opt .. struct.pack(TIME, h.finishedAt) end
  if h.lastError then flags, opt = flags + FLAG_LAST_ERROR, opt .. struct.pack('>I4c0', #h.lastError, h.lastError) end
  if h.state == STATE_RESERVED then
    opt = opt .. struct.pack('>i6Bc0', h.deadline, #h.token, h.token)
  elseif h.state == STATE_FINISHED then
    local token = h.token or ''
    opt = opt .. struct.pack('>Bc0', #token, token)
  end
  return struct.pack(HEAD, flags, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket) .. opt
end

-- The instant to stamp a transition with: now, but never before a time the record already holds, so a
-- job's history stays in order when processes' clocks differ by a clock sync's round trip (redis-clock.ts).
local function stampAfter(h, now)
  return math.max(now, h.createdAt, h.readyAt or now, h.reservedAt or now, h.finishedAt or now)
end

-- One history entry for an EVENT_* that left the job in `state`; reason false = none.
local function entry(at, event, state, attempt, node, reason)
  if not reason then return struct.pack(ENTRY, at, event * EVENT_MUL + state, attempt, node) end
  return struct.pack(ENTRY .. 'I4c0', at, event * EVENT_MUL + state + ENTRY_REASON, attempt, node, #reason, reason)
end

-- The record after a transition: the new head, then topic, body and history copied as they were, and
-- one more entry. (The topic never changes.)
local function rewrite(s, h, at, event, reason, node)
  return writeHead(h) .. string.sub(s, h.topicAt) .. entry(at, event, h.state, h.attempts, node, reason)
end

-- The refusal for a transition fenced by `token`, or nil when h is reserved under that token.
local function refuseUnlessReserved(h, token)
  if h.state ~= STATE_RESERVED then return { OUTCOME_WRONG_STATE, h.state } end
  if h.token ~= token then return { OUTCOME_TOKEN_MISMATCH, STATE_RESERVED } end
  return nil
end

-- A reserved job's record and head when `token` holds its reservation; otherwise nil and the refusal
-- the script returns as is ({OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, state} | {OUTCOME_TOKEN_MISMATCH, …}).
local function loadReserved(jobs, id, token)
  local packed = redis.call('HGET', jobs, id)
  if not packed then return nil, { OUTCOME_NOT_FOUND } end
  local h = readHead(packed)
  local refused = refuseUnlessReserved(h, token)
  if refused then return nil, refused end
  return packed, h
end

-- The reserved set's marker member (reserve.lua, reserve-groups.lua): over 64 bytes, at +inf, it keeps the set
-- a skiplist, where a listpack would be scanned and reallocated whole by each ZADD.
local RESERVED_MARKER = '# a marker, not a job: it keeps this sorted set a skiplist (reserve.lua)'

-- A number as redis.call's argument, printed with "%d" once per distinct value: Redis prints a Lua
-- number with "%.17g", which costs far more. Integers only (ms times, counts).
local intTexts = {}
local function int(n)
  local s = intTexts[n]
  if not s then
    s = string.format('%d', n)
    intTexts[n] = s
  end
  return s
end

-- A ready job's member of its topic's ready set (score: the priority): runAt and createdAt big-endian,
-- so members of one priority sort bytewise in the ready order (ready-order.ts), then the id from READY_ID_AT.
local function readyMember(h, id)
  return struct.pack('>i6i6', h.runAt, h.createdAt) .. id
end

-- A comparison of candidates i by the ready order (ready-order.ts: priority, runAt, createdAt, id) of their
-- heads[i] (false, a missing job, sorts last) and ids[i], for table.sort.
local function readyOrder(heads, ids)
  return function(a, b)
    local x, y = heads[a], heads[b]
    if not x or not y then return y and true or false end
    if x.priority ~= y.priority then return x.priority < y.priority end
    if x.runAt ~= y.runAt then return x.runAt < y.runAt end
    if x.createdAt ~= y.createdAt then return x.createdAt < y.createdAt end
    return ids[a] < ids[b]
  end
end

-- The counts hash's field for a topic's jobs in a state.
local function countOf(topic, state)
  return topic .. '|' .. state
end

-- Delayed jobs per topic and due minute and hour (due-counters.ts): the hash `due:<topic>` of the partition,
-- fields `m<minute>` and `h<hour>`. A script that moves jobs into or out of delayed calls dueCount for each
-- (+1 in, -1 out) and dueFlush once before it returns; a field that reaches 0 is deleted, so the hash holds
-- only the minutes and hours that have delayed jobs.
local dueDeltas = {}
local function dueCount(topic, runAt, n)
  local deltas = dueDeltas[topic]
  if not deltas then
    deltas = {}
    dueDeltas[topic] = deltas
  end
  local minute, hour = 'm' .. int(math.floor(runAt / DUE_MINUTE_MS)), 'h' .. int(math.floor(runAt / DUE_HOUR_MS))
  deltas[minute] = (deltas[minute] or 0) + n
  deltas[hour] = (deltas[hour] or 0) + n
end
local function dueFlush(tp)
  for topic, deltas in pairs(dueDeltas) do
    local key = tp .. 'due:' .. topic
    for field, n in pairs(deltas) do
      if n ~= 0 and redis.call('HINCRBY', key, field, int(n)) == 0 then redis.call('HDEL', key, field) end
    end
  end
  dueDeltas = {}
end

-- The body's fields {tag, bizKey, body, retry} (for the rare scripts that need them).
local function readBody(s, h)
  local _, fields = cmsgpack.unpack_one(s, h.bodyAt - 1)
  return fields
end

-- Groups (docs/flow-control.md "Groups"; docs/redis-store.md "Groups"). A store keeps groups only when all
-- its partitions are on one Redis master (redis-store.ts), so a script may reach keys beside its partition:
-- those under `{prefix:groups}:` (groupKeyPrefix). Once a topic has held a job with a group in a partition
-- (its counts `topic|grp`, set by push.lua), each of its ready jobs there is also in one lane, beside the
-- topic's ready set: its group's `lane:topic/group` (the group then named in `lanes:topic`) or, without a
-- group, `loose:topic`. Lanes gather every partition's jobs: a member is the ready member, a space and the
-- partition. reserve-groups.lua reads them for topics with group limits, so each group's jobs come in the
-- ready order whichever partition holds them, and a group's backlog never stands before another's job.
-- A topic that never held a group pays nothing.
local topicHoldsGroups = {}
local function holdsGroups(counts, topic)
  local held = topicHoldsGroups[topic]
  if held == nil then
    held = redis.call('HGET', counts, topic .. '|grp') and true or false
    topicHoldsGroups[topic] = held
  end
  return held
end

-- `{prefix:groups}:` for partition keys `{prefix:p}:`.
local function groupKeyPrefix(tp)
  return (string.gsub(tp, ':[^:]*}:$', ':groups}:'))
end

-- A ready member as a lane holds it: the member, a space (no id holds one) and the partition's number.
local function laneMember(tp, member)
  return member .. ' ' .. string.match(tp, ':(%d+)}:$')
end

-- A reserved job of a group counted (n > 0) or let go (n < 0) in `held:topic` (group → its jobs reserved in
-- every partition), which bounds the group's reservations (groupConcurrency).
local function groupHeld(gp, topic, group, n)
  local key = gp .. 'held:' .. topic
  if redis.call('HINCRBY', key, group, n) <= 0 then redis.call('HDEL', key, group) end
end

-- groupHeld for many groups of one topic (group → n): one read and at most two writes however many groups,
-- so a drain of many one-job reservations pays per call, not per job.
local function groupsHeld(gp, topic, changes)
  local groups = {}
  for group in pairs(changes) do groups[#groups + 1] = group end
  if #groups == 0 then return end
  local key = gp .. 'held:' .. topic
  local was = redis.call('HMGET', key, unpack(groups))
  local kept, gone = {}, {}
  for i, group in ipairs(groups) do
    local n = tonumber(was[i] or 0) + changes[group]
    if n > 0 then
      kept[#kept + 1] = group
      kept[#kept + 1] = n
    else
      gone[#gone + 1] = group
    end
  end
  if #kept > 0 then redis.call('HSET', key, unpack(kept)) end
  if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
end

-- Lane members (laneMember) leaving a group's lane; an emptied lane leaves the topic's list of lanes.
local function laneRemove(gp, topic, group, members)
  local lane = gp .. 'lane:' .. topic .. '/' .. group
  redis.call('ZREM', lane, unpack(members))
  if redis.call('EXISTS', lane) == 0 then redis.call('ZREM', gp .. 'lanes:' .. topic, group) end
end

-- The lane a ready job of this partition joins, relative to groupKeyPrefix: false when its topic has none here.
local function laneOf(counts, topic, group)
  if group then return 'lane:' .. topic .. '/' .. group end
  return holdsGroups(counts, topic) and 'loose:' .. topic
end

-- A job into its topic's ready set (and its lane): h holds its topic, group, priority, runAt, createdAt.
local function readyAdd(tp, counts, h, id)
  local member = readyMember(h, id)
  redis.call('ZADD', tp .. 'ready:' .. h.topic, h.priority, member)
  local lane = laneOf(counts, h.topic, h.group)
  if lane then
    local gp = groupKeyPrefix(tp)
    redis.call('ZADD', gp .. lane, h.priority, laneMember(tp, member))
    if h.group then redis.call('ZADD', gp .. 'lanes:' .. h.topic, 0, h.group) end
  end
end

-- A ready job out of its topic's ready set (and its lane), with the runAt it was added under.
local function readyRemove(tp, counts, h, id)
  local member = readyMember(h, id)
  redis.call('ZREM', tp .. 'ready:' .. h.topic, member)
  if h.group then
    laneRemove(groupKeyPrefix(tp), h.topic, h.group, { laneMember(tp, member) })
  elseif holdsGroups(counts, h.topic) then
    redis.call('ZREM', groupKeyPrefix(tp) .. 'loose:' .. h.topic, laneMember(tp, member))
  end
end

-- After reserving: lane members taken out of their lanes (lane → members, as laneOf names lanes) and each
-- group's jobs taken counted (topic → group → n).
local function leaveLanes(gp, laneGone, heldBy)
  for lane, members in pairs(laneGone) do
    local topic, group = string.match(lane, '^lane:([^/]*)/(.*)$')
    if topic then
      laneRemove(gp, topic, group, members)
    else
      redis.call('ZREM', gp .. lane, unpack(members))
    end
  end
  for topic, groups in pairs(heldBy) do groupsHeld(gp, topic, groups) end
end
