--[[ register-node: the small number that stands for a node name in this partition's history entries.
  KEYS[1] nodes hash (name → index and '#index' → name; '#' holds the last index given)
  ARGV[1] node name
  Returns: the node's index (the same one every time for the same name).
]]
local index = redis.call('HGET', KEYS[1], ARGV[1])
if index then return tonumber(index) end
index = redis.call('HINCRBY', KEYS[1], '#', 1)
redis.call('HSET', KEYS[1], ARGV[1], index, '#' .. index, ARGV[1])
return index
