--[[ retry: reserved → delayed at runAt (ready when runAt <= now), remembering the error; token-fenced.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] runAt (ms)  ARGV[5] now (ms)
  ARGV[6] node index  ARGV[7] error ('\0' = none: the last error stays)
  Returns: {0, record without history} | {-1} not found | {-2, state} not reserved | {-3, 3} token mismatch.
]]
local jobs, dueidx, reserved, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local id, token, runAt, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local err = ARGV[7] ~= '\0' and ARGV[7] or false
local packed = redis.call('HGET', jobs, id)
if not packed then return { -1 } end
local rec = cmsgpack.unpack(packed)
if rec[5] ~= 3 then return { -2, rec[5] } end
if rec[13] ~= token then return { -3, 3 } end
local topic = rec[1]
local state = runAt <= now and 2 or 1
rec[5], rec[6], rec[13], rec[14] = state, runAt, false, false
if err then rec[12] = err end
redis.call('ZREM', reserved, id)
if state == 2 then
  rec[16] = now
  redis.call('ZADD', tp .. 'ready:' .. topic, runAt, string.format('%05d', rec[7] + 32768) .. id)
  if rec[9] then redis.call('ZADD', expiry, runAt + rec[9], id) end
else
  rec[16] = false
  local member = topic .. '#' .. rec[20]
  redis.call('ZADD', tp .. 'delayed:' .. member, runAt, id)
  redis.call('ZADD', dueidx, 'LT', runAt, member)
end
redis.call('HINCRBY', counts, topic .. '|3', -1)
redis.call('HINCRBY', counts, topic .. '|' .. state, 1)
table.insert(rec[19], { now - rec[15], 6, state, rec[11], node, err })
redis.call('HSET', jobs, id, cmsgpack.pack(rec))
rec[19] = nil -- the reply stops before history (Redis ends a Lua array at the first nil)
return { 0, rec }
