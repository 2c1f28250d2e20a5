--[[ release: reserved → ready, giving the attempt back (the consumer never got the job); token-fenced.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] now (ms)  ARGV[5] node index
  Returns: {0, record as stored} | {-1} not found | {-2, state} not reserved | {-3, 3} token mismatch.
]]
local jobs, reserved, expiry, counts, tp = KEYS[1], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local id, token, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local packed = redis.call('HGET', jobs, id)
if not packed then return { -1 } end
local h = readHead(packed)
now = stampAfter(h, now)
if h.state ~= 3 then return { -2, h.state } end
if h.token ~= token then return { -3, 3 } end
h.state, h.attempts, h.token, h.deadline = 2, math.max(h.attempts - 1, 0), false, false
redis.call('ZREM', reserved, id)
redis.call('ZADD', tp .. 'ready:' .. h.topic, h.priority, readyMember(h, id))
if h.ttl then redis.call('ZADD', expiry, h.runAt + h.ttl, id) end
redis.call('HINCRBY', counts, h.topic .. '|3', -1)
redis.call('HINCRBY', counts, h.topic .. '|2', 1)
local rec = rewrite(packed, h, now, 4, 'consumer gone before delivery', node)
redis.call('HSET', jobs, id, rec)
return { 0, rec }
