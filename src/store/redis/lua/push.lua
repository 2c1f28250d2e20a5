--[[ push: stores each job as delayed (or ready when runAt <= now) unless its id exists.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] fewest delay buckets a topic has (delayBuckets)
  ARGV[3] msgpack array, 9 per job: id, topic (`topic/group` for a job with a group), runAt, bucket hash, priority (false = delayed, a number =
          ready now), ttlMs (false = none), length of its record in ARGV[4], bizKey and tag (false = none:
          a job with one is added to that label's index, label-index.lua, which list.lua reads;
          every job to its topic's id index, id-index.lua). Runs of consecutive jobs share
          a bucket hash (push-args.ts), so a call adds to a few delayed sets, many members each.
  ARGV[4] the jobs' packed records back to back (record-codec.ts packs them in Node); each record's
          head has a 0 bucket, which only this script can choose (the layout: record-layout.ts)
  ARGV[5] the record layout number (record-layout.ts RECORD_LAYOUT): marks the partition as written in it
          (counts `#layout`), even after a FLUSHALL under a running delayq; register-node.lua checks it
  Returns: {newHeadAt|false, r1 … rn}: ri = 1 when created, else the existing record (as stored).
           newHeadAt is the earliest delayed runAt pushed when it is earlier than this partition's head.
  A delayed job sits in `delayed:<topic>#<bucket>`; the due index holds `<topic>#<bucket>` → head.
  Buckets: a sorted set of ≤ 128 entries stays a listpack, a few times smaller a member than a skiplist, so
          the bucket count follows the topic's delayed count n in this partition (counts `topic|1`). While
          n < FILL × m (m = ARGV[2]) the job goes to bucket hash % m. Beyond, B is the least power-of-two
          multiple of m with n < FILL × B, and the job goes to the upper half [B/2, B) that this size
          opened. A bucket of that half only receives jobs while n < FILL × B, so it holds fewer than
          2 × FILL on average (FILL while the backlog grows) at any backlog: older, lower buckets are
          never refilled by a bigger backlog. Retry and reschedule put a job back in its own bucket.
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local FILL, fewest = 40, tonumber(ARGV[2])
local meta, blob = cmsgpack.unpack(ARGV[3]), ARGV[4]
redis.call('HSETNX', counts, '#layout', ARGV[5])
local delayed = {} -- topic → its delayed jobs in this partition, counting this call's
local function bucketOf(topic, hash)
  local n = delayed[topic]
  if not n then
    n = tonumber(redis.call('HGET', counts, countOf(topic, STATE_DELAYED)) or 0)
    delayed[topic] = n
  end
  if n < FILL * fewest then return hash % fewest end
  local half = fewest
  while n >= FILL * half * 2 do half = half * 2 end
  return half + hash % half
end
local head = redis.call('ZRANGE', dueidx, 0, 0, 'WITHSCORES')[2]
head = head and tonumber(head)
-- Many members a call (one HMGET, one HSET, one ZADD per set): a redis.call per job and command cost
-- more than the command. A call holds at most the batcher's chunk (64 jobs), under Lua's unpack limit.
local ids = {}
for i = 1, #meta, 9 do
  ids[#ids + 1] = meta[i]
  -- A topic's first job with a group in this partition gives it lanes here (record.lua): the ready jobs
  -- it holds already, all without a group, join its loose lane.
  local cut = string.find(meta[i + 1], '/', 1, true)
  if cut then
    local topic = string.sub(meta[i + 1], 1, cut - 1)
    if not holdsGroups(counts, topic) then
      local ready, loose = redis.call('ZRANGE', tp .. 'ready:' .. topic, 0, -1, 'WITHSCORES'), {}
      for r = 1, #ready, 2 do
        loose[#loose + 1] = ready[r + 1]
        loose[#loose + 1] = laneMember(tp, ready[r])
        if #loose >= 4000 then
          redis.call('ZADD', groupKeyPrefix(tp) .. 'loose:' .. topic, unpack(loose))
          loose = {}
        end
      end
      if #loose > 0 then redis.call('ZADD', groupKeyPrefix(tp) .. 'loose:' .. topic, unpack(loose)) end
      redis.call('HSET', counts, topic .. '|grp', 1)
      topicHoldsGroups[topic] = true
    end
  end
end
local existing = redis.call('HMGET', jobs, unpack(ids))
local out, earliest, heads, added, pos = {false}, nil, {}, {}, 1
local stored, made, delayedIn, readyIn, expiring, prioritized, created = {}, {}, {}, {}, {}, {}, {}
local laned = {} -- lane (laneOf) → this call's ready (priority, lane member) pairs, for topics with groups
local lanesNamed = {} -- topic → (0, group) pairs of the groups whose lanes this call adds to
local labelled = { bizkey = {}, tag = {} } -- family → label → ids
local function listOf(lists, key)
  local list = lists[key]
  if not list then
    list = {}
    lists[key] = list
  end
  return list
end
for k = 1, #ids do
  local i = 9 * k - 8
  local id, topic, runAt, hash, priority, ttl, len = meta[i], meta[i + 1], meta[i + 2], meta[i + 3], meta[i + 4], meta[i + 5], meta[i + 6]
  local group, cut = false, string.find(topic, '/', 1, true)
  if cut then topic, group = string.sub(topic, 1, cut - 1), string.sub(topic, cut + 1) end
  local bizKey, tag = meta[i + 7], meta[i + 8]
  local from = pos
  pos = pos + len
  -- A job named twice in one call is created once; the second sees the first's record.
  local prior = existing[k] or made[id]
  if prior then
    out[#out + 1] = prior
  else
    local bucket = bucketOf(topic, hash)
    local at = from + HEAD_BUCKET_AT - 1
    local record = string.sub(blob, from, at - 1) .. struct.pack('>I3', bucket) .. string.sub(blob, at + 3, pos - 1)
    made[id] = record
    if bizKey then
      local list = listOf(labelled.bizkey, bizKey)
      list[#list + 1] = id
    end
    if tag then
      local list = listOf(labelled.tag, tag)
      list[#list + 1] = id
    end
    stored[#stored + 1] = id
    stored[#stored + 1] = record
    local mine = listOf(created, topic)
    mine[#mine + 1] = id
    local state = STATE_DELAYED
    -- A topic that ever holds a job of another priority than 0 is marked (counts `topic|prio`): its due
    -- jobs are promoted before consumers take them, so the ready set orders them by priority (reserve.lua).
    if not prioritized[topic] and struct.unpack('>h', blob, from + HEAD_PRIORITY_AT - 1) ~= 0 then prioritized[topic] = true end
    if priority then
      state = STATE_READY
      local ready = listOf(readyIn, topic)
      ready[#ready + 1] = priority
      local member = struct.pack('>i6', runAt) .. string.sub(blob, from + HEAD_CREATED_AT_AT - 1, from + HEAD_RUN_AT_AT - 2) .. id -- readyMember
      ready[#ready + 1] = member
      local lane = laneOf(counts, topic, group)
      if lane then
        local list = listOf(laned, lane)
        if #list == 0 and group then
          local named = listOf(lanesNamed, topic)
          named[#named + 1] = 0
          named[#named + 1] = group
        end
        list[#list + 1] = priority
        list[#list + 1] = laneMember(tp, member)
      end
      if ttl then
        expiring[#expiring + 1] = int(runAt + ttl)
        expiring[#expiring + 1] = id
      end
    else
      local member = topic .. '#' .. int(bucket)
      local list = listOf(delayedIn, member)
      list[#list + 1] = int(runAt)
      list[#list + 1] = id
      delayed[topic] = delayed[topic] + 1
      dueCount(topic, runAt, 1)
      if not heads[member] or runAt < heads[member] then heads[member] = runAt end
      if not earliest or runAt < earliest then earliest = runAt end
    end
    -- Counters and the due index are written once per topic, after the loop.
    local field = countOf(topic, state)
    added[field] = (added[field] or 0) + 1
    out[#out + 1] = 1
  end
end
if #stored > 0 then redis.call('HSET', jobs, unpack(stored)) end
for member, list in pairs(delayedIn) do redis.call('ZADD', tp .. 'delayed:' .. member, unpack(list)) end
for topic, list in pairs(readyIn) do redis.call('ZADD', tp .. 'ready:' .. topic, unpack(list)) end
for lane, list in pairs(laned) do redis.call('ZADD', groupKeyPrefix(tp) .. lane, unpack(list)) end
for topic, list in pairs(lanesNamed) do redis.call('ZADD', groupKeyPrefix(tp) .. 'lanes:' .. topic, unpack(list)) end
if #expiring > 0 then redis.call('ZADD', expiry, unpack(expiring)) end
for family, labels in pairs(labelled) do
  for label, list in pairs(labels) do
    table.sort(list)
    addLabelled(tp, family, label, list)
  end
end
for topic, list in pairs(created) do
  table.sort(list)
  indexIds(topicIds(tp, topic), list)
end
for member, at in pairs(heads) do lowerDueHead(dueidx, tp, member, int(at)) end
for field, count in pairs(added) do redis.call('HINCRBY', counts, field, count) end
for topic in pairs(prioritized) do redis.call('HSET', counts, topic .. '|prio', 1) end
dueFlush(tp)
if earliest and (not head or earliest < head) then out[1] = earliest end
return out
