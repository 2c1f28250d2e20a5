--[[ promote: delayed → ready for this partition's earliest due jobs (runAt <= now), at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit  ARGV[4] node index
  Returns: {count, topic1, topic2, …} (the topics that got ready jobs).
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local now, limit, node = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local candidates = {}
local function earlier(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end
-- Due-index members are `<topic>#<bucket>`, the suffix of each delayed set's key, in order of their heads.
-- Once `limit` candidates are in hand, a set whose head is not earlier than the limit-th cannot improve
-- them, so a burst reads about `limit` entries, not every due one (same rule as due-scores.lua).
local heads = redis.call('ZRANGE', dueidx, '-inf', ARGV[2], 'BYSCORE', 'WITHSCORES')
for h = 1, #heads, 2 do
  if #candidates >= limit and tonumber(heads[h + 1]) >= candidates[limit][1] then break end
  local member = heads[h]
  local due = redis.call('ZRANGE', tp .. 'delayed:' .. member, '-inf', ARGV[2], 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #due, 2 do candidates[#candidates + 1] = { tonumber(due[i + 1]), due[i], member } end
  if #candidates >= limit then
    table.sort(candidates, earlier)
    for i = #candidates, limit + 1, -1 do candidates[i] = nil end
  end
end
table.sort(candidates, earlier)
local buckets, topics, out = {}, {}, { 0 }
for i = 1, math.min(limit, #candidates) do
  local id, member = candidates[i][2], candidates[i][3]
  local rec = cmsgpack.unpack(redis.call('HGET', jobs, id))
  local topic = rec[1]
  redis.call('ZREM', tp .. 'delayed:' .. member, id)
  rec[5], rec[16] = 2, now
  redis.call('ZADD', tp .. 'ready:' .. topic, rec[6], string.format('%05d', rec[7] + 32768) .. id)
  if rec[9] then redis.call('ZADD', expiry, rec[6] + rec[9], id) end
  table.insert(rec[19], { now - rec[15], 2, 2, rec[11], node, false })
  redis.call('HSET', jobs, id, cmsgpack.pack(rec))
  out[1] = out[1] + 1
  if not topics[topic] then out[#out + 1] = topic end
  topics[topic] = (topics[topic] or 0) + 1
  buckets[member] = true
end
for topic, n in pairs(topics) do
  redis.call('HINCRBY', counts, topic .. '|1', -n)
  redis.call('HINCRBY', counts, topic .. '|2', n)
end
for member in pairs(buckets) do
  local h = redis.call('ZRANGE', tp .. 'delayed:' .. member, 0, 0, 'WITHSCORES')
  if h[2] then redis.call('ZADD', dueidx, h[2], member) else redis.call('ZREM', dueidx, member) end
end
return out
