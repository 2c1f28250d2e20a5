--[[ expire: ready → expired for jobs whose ttl ran out (runAt + ttlMs <= now), at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit  ARGV[4] node index
  Returns: the number of jobs expired.
]]
local jobs, expiry, ended, counts, tp = KEYS[1], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local now, node, n = tonumber(ARGV[2]), tonumber(ARGV[4]), 0
for _, id in ipairs(redis.call('ZRANGE', expiry, '-inf', ARGV[2], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]))) do
  redis.call('ZREM', expiry, id)
  local packed = redis.call('HGET', jobs, id)
  local rec = packed and cmsgpack.unpack(packed)
  if rec and rec[5] == 2 then
    redis.call('ZREM', tp .. 'ready:' .. rec[1], string.format('%05d', rec[7] + 32768) .. id)
    rec[5], rec[18] = 7, now
    redis.call('ZADD', ended, now, id)
    redis.call('HINCRBY', counts, rec[1] .. '|2', -1)
    redis.call('HINCRBY', counts, rec[1] .. '|7', 1)
    table.insert(rec[19], { now - rec[15], 9, 7, rec[11], node, 'ttl elapsed before a consumer reserved it' })
    redis.call('HSET', jobs, id, cmsgpack.pack(rec))
    n = n + 1
  end
end
return n
