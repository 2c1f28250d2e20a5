--[[ cancel: delayed | ready | reserved → cancelled.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] now (ms)  ARGV[4] node index  ARGV[5] reason ('\0' = none)
  Returns: {0, record as stored, state before} (3: it was reserved, out with a consumer or a sink)
           | {-1} not found | {-2, state} wrong state.
]]
local jobs, dueidx, reserved, expiry, ended, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local id, now, node = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local packed = redis.call('HGET', jobs, id)
if not packed then return { -1 } end
local h = readHead(packed)
now = stampAfter(h, now)
local topic, state = h.topic, h.state
if state == 1 then
  local member = topic .. '#' .. h.bucket
  local delayed = tp .. 'delayed:' .. member
  redis.call('ZREM', delayed, id)
  local head = redis.call('ZRANGE', delayed, 0, 0, 'WITHSCORES')
  if head[2] then redis.call('ZADD', dueidx, head[2], member) else redis.call('ZREM', dueidx, member) end
elseif state == 2 then
  redis.call('ZREM', tp .. 'ready:' .. topic, readyMember(h, id))
  redis.call('ZREM', expiry, id)
elseif state == 3 then
  redis.call('ZREM', reserved, id)
else
  return { -2, state }
end
h.state, h.token, h.deadline, h.finishedAt = 6, false, false, now
logEnded(ended, now, { id })
redis.call('HINCRBY', counts, topic .. '|' .. state, -1)
redis.call('HINCRBY', counts, topic .. '|6', 1)
local reason = ARGV[5] ~= '\0' and ARGV[5] or false
local rec = rewrite(packed, h, now, 8, reason, node)
redis.call('HSET', jobs, id, rec)
return { 0, rec, state }
