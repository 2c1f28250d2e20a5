--[[ redrive: dead → ready (runAt = now) with attempts reset, for the given ids of this partition.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] node index  ARGV[4…] ids
  Returns: {count, topic1, topic2, …}: jobs redriven (missing or not dead ids are skipped), their topics.
]]
local jobs, expiry, counts, tp = KEYS[1], KEYS[4], KEYS[6], ARGV[1]
local now, node, n, out, seen = tonumber(ARGV[2]), tonumber(ARGV[3]), 0, { 0 }, {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local packed = redis.call('HGET', jobs, id)
  local h = packed and readHead(packed)
  if h and h.state == STATE_DEAD then
    local topic, at = h.topic, stampAfter(h, now)
    h.state, h.runAt, h.attempts, h.readyAt, h.finishedAt = STATE_READY, at, 0, at, false
    -- Its entry in the ended log stays (a list cannot drop one id cheaply): purge skips it, as the job is
    -- no longer terminal, or ended again in a later slot.
    redis.call('ZREM', tp .. 'dead:' .. topic, id)
    readyAdd(tp, counts, h, id)
    if h.ttl then redis.call('ZADD', expiry, at + h.ttl, id) end
    redis.call('HINCRBY', counts, countOf(topic, STATE_DEAD), -1)
    redis.call('HINCRBY', counts, countOf(topic, STATE_READY), 1)
    redis.call('HSET', jobs, id, rewrite(packed, h, at, EVENT_REDRIVE, false, node))
    n = n + 1
    if not seen[topic] then seen[topic] = true; out[#out + 1] = topic end
  end
end
out[1] = n
return out
