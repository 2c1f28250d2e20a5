--[[ reserve: ready → reserved for up to ARGV[3] jobs of the given topics, in (runAt, priority, id) order.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] max jobs  ARGV[4] TTR override (ms, '' = the job's own)
  ARGV[5] node index  ARGV[6] n topics, then the topics, then max tokens (one per reserved job)
  Returns: {id1, record1, id2, record2, …}; empty when nothing is ready.
]]
local jobs, reserved, expiry, counts, tp = KEYS[1], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local now, max, node, nt = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5]), tonumber(ARGV[6])
local ttr = ARGV[4] ~= '' and tonumber(ARGV[4]) or nil
local candidates = {}
for t = 1, nt do
  local key = tp .. 'ready:' .. ARGV[6 + t]
  local head = redis.call('ZRANGE', key, 0, max - 1, 'WITHSCORES')
  for i = 1, #head, 2 do
    candidates[#candidates + 1] = { tonumber(head[i + 1]), head[i], key }
  end
end
table.sort(candidates, function(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end)
local out, tokenBase, moved = {}, 6 + nt, {}
for i = 1, math.min(max, #candidates) do
  local c = candidates[i]
  local id = string.sub(c[2], 6)
  -- ZREM answers 0 for a candidate seen twice (a topic named twice): reserve each job once.
  if redis.call('ZREM', c[3], c[2]) == 1 then
    local rec = cmsgpack.unpack(redis.call('HGET', jobs, id))
    local deadline = now + (ttr or rec[8])
    rec[5], rec[11], rec[13], rec[14], rec[17] = 3, rec[11] + 1, ARGV[tokenBase + i], deadline, now
    redis.call('ZADD', reserved, deadline, id)
    if rec[9] then redis.call('ZREM', expiry, id) end
    moved[rec[1]] = (moved[rec[1]] or 0) + 1
    table.insert(rec[19], { now - rec[15], 3, 3, rec[11], node, false })
    redis.call('HSET', jobs, id, cmsgpack.pack(rec))
    out[#out + 1] = id
    rec[19] = nil -- the reply stops before history
    out[#out + 1] = rec
  end
end
for topic, n in pairs(moved) do
  redis.call('HINCRBY', counts, topic .. '|2', -n)
  redis.call('HINCRBY', counts, topic .. '|3', n)
end
return out
