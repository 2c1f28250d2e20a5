--[[ record-outcome: keeps a consumer's outcome (a finish's result, a fail's error) beside a job that is
  reserved with the reporting token, or finished with it (a repeated finish), in the partition's outcomes
  hash (redis-outcomes.ts reads it back and shows a result only once the job finished with that token).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] id  ARGV[3] token  ARGV[4] the outcome (JSON text)
  Returns: 1 kept | 0 refused (no such job, or not reserved or finished with that token).
]]
local packed = redis.call('HGET', KEYS[1], ARGV[2])
if not packed then return 0 end
local h = readHead(packed)
if (h.state ~= STATE_RESERVED and h.state ~= STATE_FINISHED) or h.token ~= ARGV[3] then return 0 end
-- Kept as `token json` (tokens hold no space): outcome.lua compares the token with the record's.
redis.call('HSET', ARGV[1] .. 'outcomes', ARGV[2], ARGV[3] .. ' ' .. ARGV[4])
return 1
