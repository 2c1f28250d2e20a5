--[[ outcome: a job's kept outcome (record-outcome.lua) and whether its result counts: the job finished
  with the token that reported it (the finished record keeps that token). Read only.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id
  Returns: {outcome JSON, 1 | 0} | false (no outcome, or no job).
]]
local kept = redis.call('HGET', ARGV[1] .. 'outcomes', ARGV[2])
local packed = redis.call('HGET', KEYS[1], ARGV[2])
if not kept or not packed then return false end
local h = readHead(packed)
local space = string.find(kept, ' ', 1, true)
local token = string.sub(kept, 1, space - 1)
-- 1 when the job finished under the token that reported the outcome (a reply flag, not a state)
local settled = h.state == STATE_FINISHED and h.token == token
return { string.sub(kept, space + 1), settled and 1 or 0 }
