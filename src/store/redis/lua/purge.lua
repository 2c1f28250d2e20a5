--[[ purge: deletes terminal jobs (record and history) that ended before ARGV[2], at most ARGV[3].
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] before (ms, exclusive)  ARGV[3] limit
  Returns: the number of jobs deleted.
]]
local jobs, ended, counts, tp = KEYS[1], KEYS[5], KEYS[6], ARGV[1]
local ids = redis.call('ZRANGE', ended, '-inf', '(' .. ARGV[2], 'BYSCORE', 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZREM', ended, id)
  local packed = redis.call('HGET', jobs, id)
  if packed then
    local h = readHead(packed)
    if h.state == 5 then redis.call('ZREM', tp .. 'dead:' .. h.topic, id) end
    redis.call('HINCRBY', counts, h.topic .. '|' .. h.state, -1)
    redis.call('HDEL', jobs, id)
  end
end
return #ids
