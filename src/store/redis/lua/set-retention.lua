--[[ set-retention: how long each job is kept once finished or dead ('' = the store-wide retention; 0 = keep
  none), and its first place in the retention schedule (delete-ended.lua): its runAt, or now if it ended.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] finished ms or ''  ARGV[3] dead ms or ''  ARGV[4] now  then the ids
  Returns: the number of jobs found.
]]
local jobs, tp = KEYS[1], ARGV[1]
local value, now, found = ARGV[2] .. ',' .. ARGV[3], tonumber(ARGV[4]), 0
for i = 5, #ARGV do
  local id = ARGV[i]
  local packed = redis.call('HGET', jobs, id)
  if packed then
    local h = readHead(packed)
    redis.call('HSET', tp .. 'retention', id, value)
    redis.call('ZADD', tp .. 'retain', h.finishedAt and now or math.max(h.runAt, now), id)
    found = found + 1
  end
end
return found
