--[[ promote: delayed → ready for this partition's earliest due jobs (runAt <= now), at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit  ARGV[4] node index
  Returns: {count, topic1, topic2, …} (the topics that got ready jobs).
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local now, limit, node = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local candidates = {}
for _, topic in ipairs(redis.call('ZRANGE', dueidx, '-inf', ARGV[2], 'BYSCORE')) do
  local due = redis.call('ZRANGE', tp .. 'delayed:' .. topic, '-inf', ARGV[2], 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 1, #due, 2 do candidates[#candidates + 1] = { tonumber(due[i + 1]), due[i], topic } end
end
table.sort(candidates, function(a, b)
  if a[1] ~= b[1] then return a[1] < b[1] end
  return a[2] < b[2]
end)
local touched, out = {}, { 0 }
for i = 1, math.min(limit, #candidates) do
  local id, topic = candidates[i][2], candidates[i][3]
  local rec = cmsgpack.unpack(redis.call('HGET', jobs, id))
  redis.call('ZREM', tp .. 'delayed:' .. topic, id)
  rec[5], rec[16] = 2, now
  redis.call('ZADD', tp .. 'ready:' .. topic, rec[6], string.format('%05d', rec[7] + 32768) .. id)
  if rec[9] then redis.call('ZADD', expiry, rec[6] + rec[9], id) end
  redis.call('HINCRBY', counts, topic .. '|1', -1)
  redis.call('HINCRBY', counts, topic .. '|2', 1)
  table.insert(rec[19], { now - rec[15], 2, 2, rec[11], node, false })
  redis.call('HSET', jobs, id, cmsgpack.pack(rec))
  out[1] = out[1] + 1
  if not touched[topic] then
    touched[topic] = true
    out[#out + 1] = topic
  end
end
for i = 2, #out do
  local h = redis.call('ZRANGE', tp .. 'delayed:' .. out[i], 0, 0, 'WITHSCORES')
  if h[2] then redis.call('ZADD', dueidx, h[2], out[i]) else redis.call('ZREM', dueidx, out[i]) end
end
return out
