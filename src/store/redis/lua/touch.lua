--[[ touch: extends a reservation: deadlineAt = now + (ARGV[5] or the job's TTR).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] now (ms)  ARGV[5] TTR (ms, '' = the job's own)
  Returns: {OUTCOME_OK, record as stored} | loadReserved's refusal.
]]
local jobs, reserved = KEYS[1], KEYS[3]
local id, token, now = ARGV[2], ARGV[3], tonumber(ARGV[4])
local packed, h = loadReserved(jobs, id, token)
if not packed then return h end
h.deadline = now + (ARGV[5] ~= '' and tonumber(ARGV[5]) or h.ttr)
redis.call('ZADD', reserved, h.deadline, id)
-- No history entry for a touch: only the head changes.
local rec = writeHead(h) .. string.sub(packed, h.topicAt)
redis.call('HSET', jobs, id, rec)
return { OUTCOME_OK, rec }
