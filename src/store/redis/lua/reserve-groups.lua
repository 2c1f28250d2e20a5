--[[ reserve-groups: ready → reserved for up to ARGV[3] jobs of topics with group limits (docs/flow-control.md
  "Groups"), over every partition in one call: a store keeps groups only while its partitions are on one
  Redis master (record.lua), so this script reaches them all. For each topic, in the ready order (priority,
  runAt, createdAt, id): its jobs without a group (its loose lane, and the ready set of each partition where it
  never held a group), and each group's first jobs, as many as the group may still take: its bound less its
  reservations (`held:topic`), its rate tokens (`rate:topic`: group → 'tokens:at', full when absent), none
  while paused. Groups are visited in turn from where the last call stopped (`cursor:topic`) until the call
  is filled, so a group's backlog never stands before another group's job, and each group's jobs come in the
  ready order whichever partition holds them. A job whose ttl ran out is passed over: the scheduler expires it.
  KEYS[1..6] partition 0's keys (the calling convention of the scripts with the prelude; not used)
  ARGV[1] partition 0's topic key prefix (`{prefix:0}:`)  ARGV[2] now (ms)  ARGV[3] max jobs  ARGV[4] TTR override (ms, '' = the job's own)
  ARGV[5] partitions  ARGV[6] each partition's node index, comma-separated  ARGV[7] token base (as reserve.lua)
  ARGV[8] JSON {topic: {c: groupConcurrency, p: [paused groups], r: [perSecond, burst]}}, each part optional:
  the topics to reserve from
  Returns: {{id1, packed record1, id2, packed record2, …}, tokenInMs}: the jobs reserved (records as stored), and
  the ms until a group passed over for want of a rate token has one (false: none was).
]]
local now, max = tonumber(ARGV[2]), tonumber(ARGV[3])
local ttr = ARGV[4] ~= '' and tonumber(ARGV[4]) or nil
local partitions, tokenBase, limits = tonumber(ARGV[5]), ARGV[7], cjson.decode(ARGV[8])
local nodes, part = {}, 0 -- partition → node index
for n in string.gmatch(ARGV[6], '[^,]+') do
  nodes[part], part = tonumber(n), part + 1
end
local gp = groupKeyPrefix(ARGV[1])
local function keysOf(p) return (string.gsub(ARGV[1], ':0}:$', ':' .. p .. '}:')) end

-- Candidates in parallel lists: id, partition, ready member, lane (laneOf's name, false: none), the member as
-- the lane holds it, and its score when it was popped from a group's lane (false: still in its lane).
local ids, partOf, memberOf, laneOfCand, inLane, poppedScore = {}, {}, {}, {}, {}, {}
local function candidate(id, p, member, lane, laneM, score)
  local n = #ids + 1
  ids[n], partOf[n], memberOf[n], laneOfCand[n], inLane[n], poppedScore[n] = id, p, member, lane, laneM, score
end
-- Members of a lane: the ready member, a space and the partition (laneMember); `scored`: the members come with
-- their scores, as ZPOPMIN answers.
local function fromLane(members, lane, scored)
  local step = scored and 2 or 1
  for k = 1, #members, step do
    local m = members[k]
    local member, p = string.match(m, '^(.*) (%d+)$')
    candidate(string.sub(member, READY_ID_AT), tonumber(p), member, lane, m, scored and members[k + 1] or false)
  end
end
local tokensOf, tokenInMs = {}, false -- topic → group → its tokens now; the soonest token of a group passed over
local function refill(topic, groups, rate)
  local raw = redis.call('HMGET', gp .. 'rate:' .. topic, unpack(groups))
  local perSecond, burst = tonumber(rate[1]), tonumber(rate[2])
  local out = tokensOf[topic] or {}
  tokensOf[topic] = out
  for i = 1, #groups do
    local tokens = burst
    if raw[i] then
      local was, at = string.match(raw[i], '^(.*):(.*)$')
      tokens = math.min(burst, tonumber(was) + math.max(0, now - tonumber(at)) * perSecond / 1000)
    end
    out[groups[i]] = tokens
  end
  return out
end

-- Each group's first jobs it may still take, groups from the topic's cursor on, until `max` are in hand.
-- Groups are read a little past what is still wanted (some are held at their bound or paused), not a fixed
-- 200: reading and counting names the call never reaches cost more than the lanes it takes.
local LANES_A_READ_MAX = 200
local function lanesToRead(wanted) return math.min(LANES_A_READ_MAX, wanted + math.floor(wanted / 4) + 8) end
local function readLanes(topic, limit)
  local lanes, cursorKey = gp .. 'lanes:' .. topic, gp .. 'cursor:' .. topic
  local bound, rate, paused = tonumber(limit.c), limit.r, {}
  for _, g in ipairs(limit.p or {}) do paused[g] = true end
  local cursor = redis.call('GET', cursorKey)
  local from, wrapped, got, last = cursor and '(' .. cursor or '-', not cursor, 0, nil
  while got < max do
    local to = wrapped and cursor and '[' .. cursor or '+'
    local asked = lanesToRead(max - got)
    local groups = redis.call('ZRANGE', lanes, from, to, 'BYLEX', 'LIMIT', 0, asked)
    if #groups > 0 then
      local held = bound and redis.call('HMGET', gp .. 'held:' .. topic, unpack(groups)) or {}
      local tokens = rate and refill(topic, groups, rate) or {}
      for i = 1, #groups do
        local g = groups[i]
        last = g
        if not paused[g] then
          local room = max - got
          if bound then room = math.min(room, bound - tonumber(held[i] or 0)) end
          if rate then
            local t = tokens[g]
            if t < 1 then
              local wait = math.max(1, math.ceil((1 - t) * 1000 / tonumber(rate[1])))
              if not tokenInMs or wait < tokenInMs then tokenInMs = wait end
            end
            room = math.min(room, math.floor(t))
          end
          if room > 0 then
            local lane = 'lane:' .. topic .. '/' .. g
            -- Taken out of the lane at once (one command, where a read and a later removal took two); what
            -- the call does not take goes back (putBack). A lane that gave fewer than asked is empty and leaves
            -- the list now; one that gave all it was asked may be empty too, and leaves when a call finds so.
            local popped = redis.call('ZPOPMIN', gp .. lane, room)
            local n = #popped / 2
            if n < room then redis.call('ZREM', lanes, g) end
            fromLane(popped, lane, true)
            got = got + n
            if got >= max then break end
          end
        end
      end
      from = '(' .. groups[#groups]
    end
    if #groups < asked and got < max then
      if wrapped then break end
      wrapped, from = true, '-'
    end
  end
  if last then redis.call('SET', cursorKey, last) end
end

for topic, limit in pairs(limits) do
  -- Jobs without a group: the loose lane, and the ready sets of partitions where the topic never held a group.
  fromLane(redis.call('ZRANGE', gp .. 'loose:' .. topic, 0, max - 1), 'loose:' .. topic)
  for p = 0, partitions - 1 do
    local k = keysOf(p)
    if not redis.call('HGET', k .. 'counts', topic .. '|grp') then
      for _, member in ipairs(redis.call('ZRANGE', k .. 'ready:' .. topic, 0, max - 1)) do
        candidate(string.sub(member, READY_ID_AT), p, member, false)
      end
    end
  end
  readLanes(topic, limit)
end
if #ids == 0 then return { {}, tokenInMs } end

-- The candidates' records, a read per partition.
local packs, byPart = {}, {}
for i = 1, #ids do
  local list = byPart[partOf[i]] or {}
  byPart[partOf[i]] = list
  list[#list + 1] = i
end
for p, list in pairs(byPart) do
  local want = {}
  for k, i in ipairs(list) do want[k] = ids[i] end
  local got = redis.call('HMGET', keysOf(p) .. 'jobs', unpack(want))
  for k, i in ipairs(list) do packs[i] = got[k] end
end
-- The ready order over them all decides which are taken only when there are more than `max`; otherwise each
-- head is read in turn below, into one table.
local order, heads = {}, nil
for i = 1, #ids do order[i] = i end
if #ids > max then
  heads = {}
  for i = 1, #ids do heads[i] = packs[i] and readHead(packs[i]) or false end
  table.sort(order, readyOrder(heads, ids))
end

-- What each partition's writes gather (as reserve.lua's, per partition), and the lanes' and groups'.
local out, taken, writes, laneGone, heldBy = {}, 0, {}, {}, {}
local reused, settled = {}, {} -- settled: candidates taken or dropped (a popped one that is neither goes back)
for _, i in ipairs(order) do
  if taken >= max then break end
  local h, p = packs[i] and (heads and heads[i] or readHead(packs[i], reused)), partOf[i]
  local current = h and h.state == STATE_READY and readyMember(h, ids[i]) == memberOf[i]
  if not current and laneOfCand[i] then
    -- A lane member whose job is gone or has moved on (never left so by a script: a defence) is dropped.
    settled[i] = true
    if not poppedScore[i] then
      local members = laneGone[laneOfCand[i]] or {}
      laneGone[laneOfCand[i]] = members
      members[#members + 1] = inLane[i]
    end
  elseif current and not (h.ttl and h.runAt + h.ttl <= now) then
    settled[i] = true
    taken = taken + 1
    local id = ids[i]
    local at = math.max(stampAfter(h, now), h.runAt)
    local w = writes[p]
    if not w then
      w = { leaving = {}, deadlines = {}, stored = {}, withTtl = {}, moved = {} }
      writes[p] = w
    end
    if h.ttl then w.withTtl[#w.withTtl + 1] = id end
    h.state, h.attempts, h.token, h.deadline, h.reservedAt =
      STATE_RESERVED, h.attempts + 1, tokenBase .. string.format('%08x', taken), at + (ttr or h.ttr), at
    local packed = rewrite(packs[i], h, at, EVENT_RESERVE, false, nodes[p])
    w.deadlines[#w.deadlines + 1] = int(h.deadline)
    w.deadlines[#w.deadlines + 1] = id
    w.stored[#w.stored + 1] = id
    w.stored[#w.stored + 1] = packed
    local gone = w.leaving[h.topic] or {}
    w.leaving[h.topic] = gone
    gone[#gone + 1] = memberOf[i]
    w.moved[h.topic] = (w.moved[h.topic] or 0) + 1
    local lane = laneOfCand[i]
    if lane and not poppedScore[i] then
      local members = laneGone[lane] or {}
      laneGone[lane] = members
      members[#members + 1] = inLane[i]
    end
    if h.group then
      local groups = heldBy[h.topic] or {}
      heldBy[h.topic] = groups
      groups[h.group] = (groups[h.group] or 0) + 1
    end
    out[#out + 1] = id
    out[#out + 1] = packed
  end
end
for p, w in pairs(writes) do
  local k = keysOf(p)
  for topic, gone in pairs(w.leaving) do redis.call('ZREM', k .. 'ready:' .. topic, unpack(gone)) end
  redis.call('ZADD', k .. 'reserved', '+inf', RESERVED_MARKER, unpack(w.deadlines))
  redis.call('HSET', k .. 'jobs', unpack(w.stored))
  if #w.withTtl > 0 then redis.call('ZREM', k .. 'expiry', unpack(w.withTtl)) end
  for topic, n in pairs(w.moved) do
    redis.call('HINCRBY', k .. 'counts', countOf(topic, STATE_READY), -n)
    redis.call('HINCRBY', k .. 'counts', countOf(topic, STATE_RESERVED), n)
  end
end
leaveLanes(gp, laneGone, heldBy)
-- Popped from its group's lane and not taken (the call was full, or its ttl ran out and the scheduler expires
-- it): back in the lane, and the group in the topic's list of lanes.
for i = 1, #ids do
  if poppedScore[i] and not settled[i] then
    local topic, group = string.match(laneOfCand[i], '^lane:([^/]*)/(.*)$')
    redis.call('ZADD', gp .. laneOfCand[i], poppedScore[i], inLane[i])
    redis.call('ZADD', gp .. 'lanes:' .. topic, 0, group)
  end
end
-- Each group's tokens less those it took; a bucket left alone is full again after burst / perSecond seconds,
-- when the hash may go.
for topic, groups in pairs(heldBy) do
  local rate = limits[topic].r
  if rate then
    local bucket = gp .. 'rate:' .. topic
    for group, n in pairs(groups) do
      local tokens = (tokensOf[topic] or {})[group] or tonumber(rate[2])
      redis.call('HSET', bucket, group, string.format('%.6f', tokens - n) .. ':' .. int(now))
    end
    redis.call('PEXPIRE', bucket, math.ceil(tonumber(rate[2]) * 1000 / tonumber(rate[1])) + 1000)
  end
end
return { out, tokenInMs }
