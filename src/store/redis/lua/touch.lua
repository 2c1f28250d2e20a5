--[[ touch: extends a reservation: deadlineAt = now + (ARGV[5] or the job's TTR).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] now (ms)  ARGV[5] TTR (ms, '' = the job's own)
  Returns: {0, record without history} | {-1} not found | {-2, state} not reserved | {-3, 3} token mismatch.
]]
local jobs, reserved = KEYS[1], KEYS[3]
local id, token, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
local packed = redis.call('HGET', jobs, id)
if not packed then return { -1 } end
local rec = cmsgpack.unpack(packed)
if rec[5] ~= 3 then return { -2, rec[5] } end
if rec[13] ~= token then return { -3, 3 } end
rec[14] = now + (ARGV[5] ~= '' and tonumber(ARGV[5]) or rec[8])
redis.call('ZADD', reserved, rec[14], id)
redis.call('HSET', jobs, id, cmsgpack.pack(rec))
rec[19] = nil -- the reply stops before history (Redis ends a Lua array at the first nil)
return { 0, rec }
