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
-- The same reading rule as dueJobs (lua/due-jobs.lua, which promote uses), over due times only: the first
-- `limit` heads, a cut once `limit` scores are in hand (ties at the same ms need no order here),
-- trimming at twice the limit. Its jobs are counted at a set's head time where dueJobs reads them.
local cut
local function trim()
  table.sort(scores)
  for i = #scores, limit + 1, -1 do scores[i] = nil end
  cut = scores[limit]
end
local heads = redis.call('ZRANGE', dueidx, '-inf', ARGV[2], 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit)
for h = 1, #heads, 2 do
  local head = tonumber(heads[h + 1])
  if cut and head >= cut then break end
  local set = tp .. 'delayed:' .. heads[h]
  -- The jobs due at the set's head time are counted, not read: each score in a reply costs Redis a
  -- float print, and a burst's jobs share one due time. Then the rest, with scores (as dueJobs).
  local run = math.min(limit, redis.call('ZCOUNT', set, '-inf', heads[h + 1]))
  for _ = 1, run do scores[#scores + 1] = head end
  local upto = cut or now
  if run < limit and head < upto then
    local due = redis.call('ZRANGE', set, '(' .. heads[h + 1], int(upto), 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit - run)
    for i = 2, #due, 2 do scores[#scores + 1] = tonumber(due[i]) end
  end
  if #scores >= 2 * limit or (not cut and #scores >= limit) then trim() end
end
table.sort(scores)
for i = #scores, limit + 1, -1 do scores[i] = nil end
local out = { false, false, false }
out[1] = redis.call('ZRANGE', dueidx, 0, 0, 'WITHSCORES')[2] or false
-- The reserved set's marker (reserve.lua) sits at +inf, past every deadline.
out[2] = redis.call('ZRANGE', KEYS[3], '-inf', '(+inf', 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, 1)[2] or false
out[3] = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')[2] or false
for i = 1, #scores do out[i + 3] = scores[i] end
return out
