--[[ upgrade-layout: a partition in an older record layout to the current one in place, atomically; the
  records are unchanged. Layout 4 adds the due-time counters (`due:<topic>`, due-counters.ts), built here
  from the delayed sets; layout 5 the bizKey and tag indexes (label-index.lua), built from the records.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] the layout to upgrade from (3 or 4)  ARGV[3] the layout after (5)
  Returns: 1 when upgraded, 0 when the partition is not in layout ARGV[2] (another process upgraded it).
  Reads every delayed job's score (from 3) and every record (from 3 or 4) once, so it holds Redis in
  proportion to the partition's jobs, once; every delayq writing the partition must be of the new layout
  from then on (an older one keeps neither counters nor indexes).
]]
local jobs, dueidx, counts, tp = KEYS[1], KEYS[2], KEYS[6], ARGV[1]
if redis.call('HGET', counts, '#layout') ~= ARGV[2] then return 0 end
if ARGV[2] == '3' then
  for _, member in ipairs(redis.call('ZRANGE', dueidx, 0, -1)) do
    -- A due-index member is `<topic>#<bucket>` (topics hold no '#').
    local topic = string.match(member, '^(.*)#[^#]*$')
    local scores = redis.call('ZRANGE', tp .. 'delayed:' .. member, 0, -1, 'WITHSCORES')
    for s = 2, #scores, 2 do dueCount(topic, tonumber(scores[s]), 1) end
  end
  dueFlush(tp)
end
local cursor = '0'
repeat
  local page = redis.call('HSCAN', jobs, cursor, 'COUNT', 1000)
  cursor = page[1]
  local fields = page[2]
  for i = 1, #fields, 2 do
    local id, packed = fields[i], fields[i + 1]
    for _, key in ipairs(labelKeys(tp, packed, readHead(packed))) do redis.call('ZADD', key, 0, id) end
  end
until cursor == '0'
redis.call('HSET', counts, '#layout', ARGV[3])
return 1
