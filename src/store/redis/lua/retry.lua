--[[ retry: reserved → delayed at runAt (ready when runAt <= now), remembering the error; token-fenced.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] runAt (ms)  ARGV[5] now (ms)
  ARGV[6] node index  ARGV[7] error ('\0' = none: the last error stays)
  Returns: {0, record as stored} | {-1} not found | {-2, state} not reserved | {-3, 3} token mismatch.
]]
local jobs, dueidx, reserved, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local id, token, runAt, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local err = ARGV[7] ~= '\0' and ARGV[7] or false
local packed = redis.call('HGET', jobs, id)
if not packed then return { -1 } end
local h = readHead(packed)
now = stampAfter(h, now)
if h.state ~= 3 then return { -2, h.state } end
if h.token ~= token then return { -3, 3 } end
local topic = h.topic
local state = runAt <= now and 2 or 1
h.state, h.runAt, h.token, h.deadline = state, runAt, false, false
if err then h.lastError = err end
redis.call('ZREM', reserved, id)
if state == 2 then
  h.readyAt = now
  redis.call('ZADD', tp .. 'ready:' .. topic, h.priority, readyMember(h, id))
  if h.ttl then redis.call('ZADD', expiry, runAt + h.ttl, id) end
else
  h.readyAt = false
  local member = topic .. '#' .. h.bucket
  redis.call('ZADD', tp .. 'delayed:' .. member, runAt, id)
  redis.call('ZADD', dueidx, 'LT', runAt, member)
end
redis.call('HINCRBY', counts, topic .. '|3', -1)
redis.call('HINCRBY', counts, topic .. '|' .. state, 1)
local rec = rewrite(packed, h, now, 6, err, node)
redis.call('HSET', jobs, id, rec)
return { 0, rec }
