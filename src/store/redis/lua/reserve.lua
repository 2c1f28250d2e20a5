--[[ reserve: ready → reserved for up to ARGV[3] jobs of the given topics, in (runAt, priority, id) order;
  then, when fewer are ready, delayed → reserved for due jobs of those topics the promoter has not moved
  (it leaves a draining topic's due jobs to its consumers: promote.lua), earliest first, each recorded as
  promoted and reserved at the same instant. The topics that got jobs are stamped in the `draining` hash.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] max jobs  ARGV[4] TTR override (ms, '' = the job's own)
  ARGV[5] node index  ARGV[6] n topics, then the topics, then a token base (16 random hex digits from the
  client): the i-th job reserved by this call gets token base .. %08x(i), unique and unguessable per call
  Returns: {id1, packed record1, id2, packed record2, …} (the records as stored); empty when nothing is ready.
]]
local jobs, reserved, expiry, counts, tp = KEYS[1], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local RESERVED_MARKER = '# a marker, not a job: it keeps this sorted set a skiplist (reserve.lua)'
local now, max, node, nt = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])
local ttr = ARGV[4] ~= '' and tonumber(ARGV[4]) or nil
-- The ready members to take, in (runAt, priority, id) order, and the ready set each comes from.
local members, setOf = {}, {}
if nt == 1 then
  -- One topic's set already answers in that order: no scores, no sort, no table per job.
  local key = tp .. 'ready:' .. ARGV[7]
  members = redis.call('ZRANGE', key, 0, max - 1)
  for i = 1, #members do setOf[i] = key end
else
  local candidates, seen = {}, {}
  for t = 1, nt do
    local key = tp .. 'ready:' .. ARGV[6 + t]
    if not seen[key] then -- a topic named twice is read once, so each job is reserved once
      seen[key] = true
      local head = redis.call('ZRANGE', key, 0, max - 1, 'WITHSCORES')
      for i = 1, #head, 2 do
        candidates[#candidates + 1] = { tonumber(head[i + 1]), head[i], key }
      end
    end
  end
  -- Several topics' sets are merged.
  table.sort(candidates, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  for i, c in ipairs(candidates) do members[i], setOf[i] = c[2], c[3] end
end
-- Many members a call (one HMGET, one HSET, one ZREM per topic, one ZADD): a redis.call per job and
-- command costs more than the command itself. At most 100 jobs, under Lua's unpack limit.
local taken = math.min(max, #members)
local ids, leaving = {}, {}
for i = 1, taken do
  ids[i] = string.sub(members[i], 6)
  local gone = leaving[setOf[i]] or {}
  leaving[setOf[i]] = gone
  gone[#gone + 1] = members[i]
end
-- Then due jobs still delayed, after the ready ones (the promoter moves the earliest due first, so what is
-- ready is due no later, bar ties): the due-index member of each one's set. A few more than needed are
-- read, in case some must be passed over (a lapsed ttl); only those handed out are moved.
local dueSetOf = {}
if taken < max then
  local wanted = {}
  for t = 1, nt do wanted[ARGV[6 + t]] = true end
  local dueIds, dueSets = dueJobs(KEYS[2], tp, now, max - taken + 8, function(member) return not wanted[topicOfSet(member)] end)
  for i = 1, #dueIds do
    taken = taken + 1
    ids[taken], dueSetOf[taken] = dueIds[i], dueSets[i]
  end
end
if taken == 0 then return {} end
for key, gone in pairs(leaving) do redis.call('ZREM', key, unpack(gone)) end
local packs = redis.call('HMGET', jobs, unpack(ids))
local out, tokenBase, moved, deadlines, stored, withTtl = {}, ARGV[7 + nt], {}, {}, {}, {}
local fromDelayed, delayedGone = {}, {}
local h = {} -- each job's head in turn
for i = 1, taken do
  local id, s, dueSet = ids[i], packs[i], dueSetOf[i]
  readHead(s, h)
  -- A due job whose ttl has run out is left to promote and expire; so is anything not delayed (defensive).
  if #out < 2 * max and not (dueSet and (h.state ~= 1 or (h.ttl and h.runAt + h.ttl <= now))) then
    -- Nor before the job was due (runAt may come from another process's clock too).
    local at = math.max(stampAfter(h, now), h.runAt)
    local deadline = at + (ttr or h.ttr)
    local attempt = h.attempts
    h.state, h.attempts, h.token, h.deadline, h.reservedAt = 3, attempt + 1, tokenBase .. string.format('%08x', i), deadline, at
    deadlines[#deadlines + 1] = int(deadline)
    deadlines[#deadlines + 1] = id
    moved[h.topic] = (moved[h.topic] or 0) + 1
    local packed
    if dueSet then
      -- Promoted and reserved at one instant: the history shows both, as if the promoter had run first.
      h.readyAt = at
      packed = writeHead(h) .. string.sub(s, h.topicAt) .. entry(at, 2, 2, attempt, node, false) .. entry(at, 3, 3, h.attempts, node, false)
      fromDelayed[h.topic] = (fromDelayed[h.topic] or 0) + 1
      local gone = delayedGone[dueSet] or {}
      delayedGone[dueSet] = gone
      gone[#gone + 1] = id
    else
      if h.ttl then withTtl[#withTtl + 1] = id end
      packed = rewrite(s, h, at, 3, false, node)
    end
    stored[#stored + 1] = id
    stored[#stored + 1] = packed
    out[#out + 1] = id
    out[#out + 1] = packed
  end
end
if #out == 0 then return out end
-- The marker goes first: a sorted set created by a member over 64 bytes is a skiplist, and stays one while
-- the marker is in it. Redis would keep a set of at most 128 short members (what consumers hold) as a
-- listpack, where each ZADD scans and reallocates the whole set: ≈ 2.5 µs a job at 100 held, against
-- ≈ 0.5 in a skiplist. Its score, +inf, keeps it out of every deadline query (readers stop before +inf).
redis.call('ZADD', reserved, '+inf', RESERVED_MARKER, unpack(deadlines))
redis.call('HSET', jobs, unpack(stored))
if #withTtl > 0 then redis.call('ZREM', expiry, unpack(withTtl)) end
for member, gone in pairs(delayedGone) do
  local set = tp .. 'delayed:' .. member
  redis.call('ZREM', set, unpack(gone))
  local head = redis.call('ZRANGE', set, 0, 0, 'WITHSCORES')
  if head[2] then redis.call('ZADD', KEYS[2], head[2], member) else redis.call('ZREM', KEYS[2], member) end
end
local stamp = int(now)
for topic, n in pairs(moved) do
  local delayed = fromDelayed[topic] or 0
  if n > delayed then redis.call('HINCRBY', counts, topic .. '|2', delayed - n) end
  if delayed > 0 then redis.call('HINCRBY', counts, topic .. '|1', -delayed) end
  redis.call('HINCRBY', counts, topic .. '|3', n)
  redis.call('HSET', tp .. 'draining', topic, stamp)
end
return out
