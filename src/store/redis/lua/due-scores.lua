--[[ due-scores: the due times (runAt <= now) of this partition's earliest delayed jobs, read only.
  The client merges them over all partitions to promote the earliest `limit` jobs of the whole store.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit
  Returns: up to `limit` runAts, ascending.
]]
local dueidx, tp = KEYS[2], ARGV[1]
local now, limit = ARGV[2], tonumber(ARGV[3])
local scores = {}
for _, topic in ipairs(redis.call('ZRANGE', dueidx, '-inf', now, 'BYSCORE')) do
  local due = redis.call('ZRANGE', tp .. 'delayed:' .. topic, '-inf', now, 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 2, #due, 2 do scores[#scores + 1] = tonumber(due[i]) end
end
table.sort(scores)
local out = {}
for i = 1, math.min(limit, #scores) do out[i] = scores[i] end
return out
