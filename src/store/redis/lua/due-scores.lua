--[[ due-scores: the due times (runAt <= now) of this partition's earliest delayed jobs, read only.
  The client merges them over all partitions to promote the earliest `limit` jobs of the whole store.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit
  Returns: up to `limit` runAts, ascending.
]]
local dueidx, tp = KEYS[2], ARGV[1]
local now, limit = ARGV[2], tonumber(ARGV[3])
local scores = {}
-- Delayed sets in order of their heads; once `limit` scores are in hand, a set whose head is not earlier
-- than the limit-th one cannot improve them (ties at the same ms are not ordered by id across sets).
local heads = redis.call('ZRANGE', dueidx, '-inf', now, 'BYSCORE', 'WITHSCORES')
for h = 1, #heads, 2 do
  if #scores >= limit and tonumber(heads[h + 1]) >= scores[limit] then break end
  local due = redis.call('ZRANGE', tp .. 'delayed:' .. heads[h], '-inf', now, 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 2, #due, 2 do scores[#scores + 1] = tonumber(due[i]) end
  if #scores >= limit then
    table.sort(scores)
    for i = #scores, limit + 1, -1 do scores[i] = nil end
  end
end
table.sort(scores)
return scores
