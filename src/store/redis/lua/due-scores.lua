--[[ due-scores: the due times (runAt <= now) of this partition's earliest delayed jobs, read only.
  The client merges them over all partitions to promote the earliest `limit` jobs of the whole store.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] now (ms)  ARGV[3] limit
  Returns: {dueHead, deadlineHead, expiryHead, runAt1, runAt2, …}: up to `limit` due runAts, ascending,
           after this partition's earliest delayed runAt, TTR deadline and ttl expiry (nil = none), which
           tell the scheduler when to wake next for the partitions it does not promote now.
]]
local dueidx, tp = KEYS[2], ARGV[1]
local now, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local scores = {}
-- The same reading rule as promote.lua: the first `limit` heads, a cut once `limit` scores are in hand
-- (ties at the same ms are not ordered by id across sets), trimming at twice the limit.
local cut
local function trim()
  table.sort(scores)
  for i = #scores, limit + 1, -1 do scores[i] = nil end
  cut = scores[limit]
end
local heads = redis.call('ZRANGE', dueidx, '-inf', ARGV[2], 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
for h = 1, #heads, 2 do
  if cut and tonumber(heads[h + 1]) >= cut then break end
  local due = redis.call('ZRANGE', tp .. 'delayed:' .. heads[h], '-inf', int(cut or now), 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
  for i = 2, #due, 2 do scores[#scores + 1] = tonumber(due[i]) end
  if #scores >= 2 * limit or (not cut and #scores >= limit) then trim() end
end
table.sort(scores)
for i = #scores, limit + 1, -1 do scores[i] = nil end
local out = { false, false, false }
for k = 1, 3 do out[k] = redis.call('ZRANGE', KEYS[k + 1], 0, 0, 'WITHSCORES')[2] or false end
for i = 1, #scores do out[i + 3] = scores[i] end
return out
