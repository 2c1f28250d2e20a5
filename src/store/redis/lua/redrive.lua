--[[ redrive: dead → ready (runAt = now) with attempts reset, for the given ids of this partition.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] node index  ARGV[4…] ids
  Returns: {count, topic1, topic2, …}: jobs redriven (missing or not dead ids are skipped), their topics.
]]
local jobs, expiry, ended, counts, tp = KEYS[1], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local now, node, n, out, seen = tonumber(ARGV[2]), tonumber(ARGV[3]), 0, { 0 }, {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local packed = redis.call('HGET', jobs, id)
  local rec = packed and cmsgpack.unpack(packed)
  if rec and rec[5] == 5 then
    local topic = rec[1]
    rec[5], rec[6], rec[11], rec[16], rec[18] = 2, now, 0, now, false
    redis.call('ZREM', ended, id)
    redis.call('ZREM', tp .. 'dead:' .. topic, id)
    redis.call('ZADD', tp .. 'ready:' .. topic, now, string.format('%05d', rec[7] + 32768) .. id)
    if rec[9] then redis.call('ZADD', expiry, now + rec[9], id) end
    redis.call('HINCRBY', counts, topic .. '|5', -1)
    redis.call('HINCRBY', counts, topic .. '|2', 1)
    table.insert(rec[19], { now - rec[15], 10, 2, 0, node, false })
    redis.call('HSET', jobs, id, cmsgpack.pack(rec))
    n = n + 1
    if not seen[topic] then seen[topic] = true; out[#out + 1] = topic end
  end
end
out[1] = n
return out
