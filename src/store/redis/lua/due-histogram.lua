--[[ due-histogram: delayed jobs per due-time bucket in this partition, read only, from the due counters.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] topic ('' = all)  ARGV[3] from (ms)  ARGV[4] to (ms, exclusive)
  ARGV[5] bucket width (ms); from, to and the width are whole minutes (redis-due-histogram.ts checks)
  Returns: {count1, count2, …}: one count per bucket.
  Each bucket is read as its whole hours plus the minutes before the first and after the last, so a call
  reads at most 2 × 59 + width / hour fields per bucket and topic (the counters: record.lua dueCount).
  All topics: those with delayed jobs in this partition (counts `topic|STATE_DELAYED` above 0).
]]
local counts, tp, topic = KEYS[6], ARGV[1], ARGV[2]
local from, to, width = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local n = math.ceil((to - from) / width)
local fields, bucketOf = {}, {}
local function add(field, b)
  fields[#fields + 1] = field
  bucketOf[#fields] = b
end
for b = 1, n do
  local lo = from + (b - 1) * width
  local hi = math.min(lo + width, to)
  local firstHour = math.ceil(lo / DUE_HOUR_MS) * DUE_HOUR_MS
  local lastHour = math.floor(hi / DUE_HOUR_MS) * DUE_HOUR_MS
  if firstHour >= lastHour then
    for m = lo, hi - 1, DUE_MINUTE_MS do add('m' .. int(m / DUE_MINUTE_MS), b) end
  else
    for m = lo, firstHour - 1, DUE_MINUTE_MS do add('m' .. int(m / DUE_MINUTE_MS), b) end
    for hr = firstHour, lastHour - 1, DUE_HOUR_MS do add('h' .. int(hr / DUE_HOUR_MS), b) end
    for m = lastHour, hi - 1, DUE_MINUTE_MS do add('m' .. int(m / DUE_MINUTE_MS), b) end
  end
end
local topics = {}
if topic ~= '' then
  topics[1] = topic
else
  local all = redis.call('HGETALL', counts)
  local suffix = '|' .. STATE_DELAYED
  for i = 1, #all, 2 do
    local field = all[i]
    if string.sub(field, -#suffix) == suffix and tonumber(all[i + 1]) > 0 then
      topics[#topics + 1] = string.sub(field, 1, -#suffix - 1)
    end
  end
end
local out = {}
for b = 1, n do out[b] = 0 end
for _, t in ipairs(topics) do
  local key = tp .. 'due:' .. t
  -- HMGET in slices, under Lua's unpack limit.
  for i = 1, #fields, 4000 do
    local last = math.min(i + 3999, #fields)
    local got = redis.call('HMGET', key, unpack(fields, i, last))
    for k = 1, #got do
      if got[k] then
        local b = bucketOf[i + k - 1]
        out[b] = out[b] + tonumber(got[k])
      end
    end
  end
end
return out
