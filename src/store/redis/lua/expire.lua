--[[ expire: ready → expired for jobs whose ttl ran out (runAt + ttlMs <= now), at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit  ARGV[4] node index
  Returns: the number of jobs expired.
]]
local jobs, expiry, counts, tp = KEYS[1], KEYS[4], KEYS[6], ARGV[1]
local now, node, n, ended = tonumber(ARGV[2]), tonumber(ARGV[4]), 0, {}
for _, id in ipairs(redis.call('ZRANGE', expiry, '-inf', ARGV[2], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]))) do
  redis.call('ZREM', expiry, id)
  local packed = redis.call('HGET', jobs, id)
  local h = packed and readHead(packed)
  if h and h.state == 2 then
    local at = stampAfter(h, now)
    redis.call('ZREM', tp .. 'ready:' .. h.topic, string.format('%05d', h.priority + 32768) .. id)
    h.state, h.finishedAt = 7, at
    ended[#ended + 1] = at
    ended[#ended + 1] = id
    redis.call('HINCRBY', counts, h.topic .. '|2', -1)
    redis.call('HINCRBY', counts, h.topic .. '|7', 1)
    redis.call('HSET', jobs, id, rewrite(packed, h, at, 9, 'ttl elapsed before a consumer reserved it', node))
    n = n + 1
  end
end
if #ended > 0 then logEndedAt(KEYS[5], ended) end
return n
