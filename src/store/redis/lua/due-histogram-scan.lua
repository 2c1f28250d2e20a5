--[[ due-histogram-scan: delayed jobs per due-time bucket in this partition, read only, a slice of sets a call:
  the exact read for a range whose edges are not whole minutes (due-histogram.lua reads the counters for the rest).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] topic ('' = all)  ARGV[3] from (ms)  ARGV[4] to (ms, exclusive)
  ARGV[5] bucket width (ms)  ARGV[6] rank in the due index to start at  ARGV[7] most sets to read
  Returns: {nextRank (-1: done), count1, count2, …}: one count per bucket.
  A delayed set holds jobs at or after its due-index score (its head), so only sets whose head is before
  `to` are read, in head order. Per set one ZRANGE over [from, to), limited to 8 jobs per bucket + 1, reads
  the scores in range (most sets are small listpacks, and a redis.call costs more than a few entries); a
  set that fills the limit gets a ZCOUNT per bucket instead. A call reads at most ARGV[7] sets so Redis is
  never held long: the client calls again from nextRank.
]]
local dueidx, tp, topic = KEYS[2], ARGV[1], ARGV[2]
local from, to, width = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local rank, most = tonumber(ARGV[6]), tonumber(ARGV[7])
local n = math.ceil((to - from) / width)
local counts = {}
for i = 1, n do counts[i] = 0 end
local prefix = topic .. '#'
local upper = '(' .. ARGV[4]
local limit, floor = 8 * n + 1, math.floor
local heads = redis.call('ZRANGE', dueidx, '-inf', upper, 'BYSCORE', 'LIMIT', rank, most)
for h = 1, #heads do
  local member = heads[h]
  if topic == '' or string.sub(member, 1, #prefix) == prefix then
    local set = tp .. 'delayed:' .. member
    local scores = redis.call('ZRANGE', set, ARGV[3], upper, 'BYSCORE', 'LIMIT', 0, limit, 'WITHSCORES')
    if #scores <= 2 * 8 * n then
      for s = 2, #scores, 2 do
        local b = floor((tonumber(scores[s]) - from) / width) + 1
        counts[b] = counts[b] + 1
      end
    else
      for i = 1, n do
        local lo = from + (i - 1) * width
        local hi = math.min(lo + width, to)
        counts[i] = counts[i] + redis.call('ZCOUNT', set, lo, '(' .. hi)
      end
    end
  end
end
local out = { #heads < most and -1 or rank + #heads }
for i = 1, n do out[i + 1] = counts[i] end
return out
