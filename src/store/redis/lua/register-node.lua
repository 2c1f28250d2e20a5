--[[ register-node: the small number that stands for a node name in this partition's history entries, and
  the guard against records this delayq cannot read.
  KEYS[1] nodes hash (name → index and '#index' → name; '#' holds the last index given)
  KEYS[2] counts hash ('#layout': the record layout the partition's jobs are written in; push.lua sets it)
  KEYS[3] jobs hash
  ARGV[1] node name  ARGV[2] the record layout this delayq writes (record-layout.ts RECORD_LAYOUT)
  Returns: the node's index (the same one every time for the same name), or the error 'LAYOUT <n>' when
           the partition holds jobs of another layout (n = 1: written before layouts had a number).
]]
local layout = redis.call('HGET', KEYS[2], '#layout')
if layout ~= ARGV[2] then
  if layout or redis.call('EXISTS', KEYS[3]) == 1 then return redis.error_reply('LAYOUT ' .. (layout or '1')) end
  redis.call('HSET', KEYS[2], '#layout', ARGV[2])
end
local index = redis.call('HGET', KEYS[1], ARGV[1])
if index then return tonumber(index) end
index = redis.call('HINCRBY', KEYS[1], '#', 1)
redis.call('HSET', KEYS[1], ARGV[1], index, '#' .. index, ARGV[1])
return index
