--[[ release: reserved → ready, giving the attempt back (the consumer never got the job); token-fenced.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] now (ms)  ARGV[5] node index
  Returns: {0, record without history} | {-1} not found | {-2, state} not reserved | {-3, 3} token mismatch.
]]
local jobs, reserved, expiry, counts, tp = KEYS[1], KEYS[3], KEYS[4], KEYS[6], ARGV[1]
local id, token, now, node = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local packed = redis.call('HGET', jobs, id)
if not packed then return { -1 } end
local rec = cmsgpack.unpack(packed)
if rec[5] ~= 3 then return { -2, rec[5] } end
if rec[13] ~= token then return { -3, 3 } end
rec[5], rec[11], rec[13], rec[14] = 2, math.max(rec[11] - 1, 0), false, false
redis.call('ZREM', reserved, id)
redis.call('ZADD', tp .. 'ready:' .. rec[1], rec[6], string.format('%05d', rec[7] + 32768) .. id)
if rec[9] then redis.call('ZADD', expiry, rec[6] + rec[9], id) end
redis.call('HINCRBY', counts, rec[1] .. '|3', -1)
redis.call('HINCRBY', counts, rec[1] .. '|2', 1)
table.insert(rec[19], { now - rec[15], 4, 2, rec[11], node, 'consumer gone before delivery' })
redis.call('HSET', jobs, id, cmsgpack.pack(rec))
rec[19] = nil -- the reply stops before history (Redis ends a Lua array at the first nil)
return { 0, rec }
