--[[ upgrade-layout: a partition in record layout 3 to layout 4 in place, atomically: layout 4 adds the due-time
  counters (`due:<topic>`, due-counters.ts), built here from the delayed sets; the records are unchanged.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] the layout to upgrade from (3)  ARGV[3] the layout after (4)
  Returns: 1 when upgraded, 0 when the partition is not in layout ARGV[2] (another process upgraded it).
  Reads every delayed job's score once, so it holds Redis in proportion to the partition's delayed jobs, once;
  every delayq writing the partition must be of layout 4 from then on (an older one keeps no counters).
]]
local dueidx, counts, tp = KEYS[2], KEYS[6], ARGV[1]
if redis.call('HGET', counts, '#layout') ~= ARGV[2] then return 0 end
for _, member in ipairs(redis.call('ZRANGE', dueidx, 0, -1)) do
  -- A due-index member is `<topic>#<bucket>` (topics hold no '#').
  local topic = string.match(member, '^(.*)#[^#]*$')
  local scores = redis.call('ZRANGE', tp .. 'delayed:' .. member, 0, -1, 'WITHSCORES')
  for s = 2, #scores, 2 do dueCount(topic, tonumber(scores[s]), 1) end
end
dueFlush(tp)
redis.call('HSET', counts, '#layout', ARGV[3])
return 1
