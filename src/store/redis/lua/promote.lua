--[[ promote: delayed → ready for this partition's earliest due jobs (runAt <= now), at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit  ARGV[4] node index
  Returns: {count, dueHead, deadlineHead, expiryHead, topic1, topic2, …}: the topics that got ready jobs,
           and afterwards the earliest runAt of a delayed job, TTR deadline and ttl expiry (nil = none),
           so a scheduler on one partition needs no other call to know when to wake next.
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local now, limit, node = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
-- A candidate is a string key, 16-digit zero-padded runAt then id, so table.sort compares with C's string
-- order (exactly (runAt, id)) instead of calling a Lua comparator: sorting was a third of a burst's cost.
local candidates, setOf = {}, {}
local function runAtOf(key) return tonumber(string.sub(key, 1, 16)) end
-- Formatted once per distinct score (a burst's jobs share a few): string.format per job was a cost of its own.
local prefixes = {}
local function prefixOf(score)
  local p = prefixes[score]
  if not p then
    p = string.format('%016d', tonumber(score))
    prefixes[score] = p
  end
  return p
end
-- Due-index members are `<topic>#<bucket>`, the suffix of each delayed set's key, in order of their heads.
-- Once `limit` candidates are in hand their limit-th time is a cut: a set whose head is not earlier cannot
-- improve them, and later sets are read only up to it. The first `limit` heads are enough (each set read
-- adds at least its head), so a large backlog of due sets costs about `limit` reads, not one per set.
-- Candidates are trimmed back to `limit` when they reach twice that, not after every set.
local cut, setsRead
local function trim()
  table.sort(candidates)
  for i = #candidates, limit + 1, -1 do candidates[i] = nil end
  cut = runAtOf(candidates[limit])
end
local heads = redis.call('ZRANGE', dueidx, '-inf', ARGV[2], 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
setsRead = 0
local function add(member, prefix, id)
  local key = prefix .. id
  candidates[#candidates + 1] = key
  setOf[key] = member
end
for h = 1, #heads, 2 do
  local member, head = heads[h], heads[h + 1]
  local headAt = tonumber(head)
  if cut and headAt >= cut then break end
  local set = tp .. 'delayed:' .. member
  -- The jobs due at the set's head time (its due-index score) are read without scores: each score in a
  -- reply costs Redis a float print, and a burst's jobs share one due time. Then the rest, with scores.
  local run = redis.call('ZRANGE', set, '-inf', head, 'BYSCORE', 'LIMIT', 0, limit)
  local prefix = prefixOf(head)
  for i = 1, #run do add(member, prefix, run[i]) end
  local upto = cut or now
  if #run < limit and headAt < upto then
    local due = redis.call('ZRANGE', set, '(' .. head, int(upto), 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit - #run)
    for i = 1, #due, 2 do add(member, prefixOf(due[i + 1]), due[i]) end
  end
  setsRead = setsRead + 1
  if #candidates >= 2 * limit or (not cut and #candidates >= limit) then trim() end
end
-- One set's reply is already in order (and at most `limit`).
if setsRead > 1 then table.sort(candidates) end
-- Calls carry many members at once (one HMGET, one HSET, one ZREM per set, one ZADD per topic): a
-- redis.call per job and command cost more than the commands themselves. Chunks stay under Lua's
-- unpack limit.
local function call(command, key, args)
  for i = 1, #args, 4000 do redis.call(command, key, unpack(args, i, math.min(i + 3999, #args))) end
end
local taken = math.min(limit, #candidates)
local ids = {}
for i = 1, taken do ids[i] = string.sub(candidates[i], 17) end
local packs = {}
for i = 1, taken, 4000 do
  local part = redis.call('HMGET', jobs, unpack(ids, i, math.min(i + 3999, taken)))
  for k = 1, #part do packs[#packs + 1] = part[k] end
end
-- Ready members start with the 5-digit priority + 32768, formatted once per priority.
local priorityKeys = {}
local function priorityKey(priority)
  local k = priorityKeys[priority]
  if not k then
    k = string.format('%05d', priority + 32768)
    priorityKeys[priority] = k
  end
  return k
end
local topics, out, leaving, arriving, withTtl, stored = {}, { 0, false, false, false }, {}, {}, {}, {}
local h = {} -- each job's head in turn
for i = 1, taken do
  local id, member = ids[i], setOf[candidates[i]]
  local s = packs[i]
  readHead(s, h)
  local topic = h.topic
  h.state, h.readyAt = 2, now
  local gone = leaving[member] or {}
  leaving[member] = gone
  gone[#gone + 1] = id
  local ready = arriving[topic]
  if not ready then
    ready = {}
    arriving[topic] = ready
    out[#out + 1] = topic
  end
  ready[#ready + 1] = int(h.runAt)
  ready[#ready + 1] = priorityKey(h.priority) .. id
  if h.ttl then
    withTtl[#withTtl + 1] = int(h.runAt + h.ttl)
    withTtl[#withTtl + 1] = id
  end
  stored[#stored + 1] = id
  stored[#stored + 1] = rewrite(s, h, now, 2, false, node)
  topics[topic] = (topics[topic] or 0) + 1
end
out[1] = taken
call('HSET', jobs, stored)
for member, gone in pairs(leaving) do call('ZREM', tp .. 'delayed:' .. member, gone) end
for topic, ready in pairs(arriving) do call('ZADD', tp .. 'ready:' .. topic, ready) end
call('ZADD', expiry, withTtl)
for topic, n in pairs(topics) do
  redis.call('HINCRBY', counts, topic .. '|1', -n)
  redis.call('HINCRBY', counts, topic .. '|2', n)
end
for member in pairs(leaving) do
  local head = redis.call('ZRANGE', tp .. 'delayed:' .. member, 0, 0, 'WITHSCORES')
  if head[2] then redis.call('ZADD', dueidx, head[2], member) else redis.call('ZREM', dueidx, member) end
end
out[2] = redis.call('ZRANGE', dueidx, 0, 0, 'WITHSCORES')[2] or false
out[3] = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2] or false
out[4] = redis.call('ZRANGE', expiry, 0, 0, 'WITHSCORES')[2] or false
return out
