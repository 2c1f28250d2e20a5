--[[ label-index: the partition's indexes of jobs by bizKey and by tag (`bizkey:<bizKey>`, `tag:<tag>`: sorted
  sets, score 0, so members go in id order), which list.lua walks instead of every job of the partition.
  push.lua adds a job with a label; the scripts that delete a record remove it; upgrade-layout.lua builds
  them for a partition written before they existed.
]]
-- The index keys of a stored job (none, one or two).
local function labelKeys(tp, packed, h)
  local fields, keys = readBody(packed, h), {}
  if fields[2] and fields[2] ~= '' then keys[#keys + 1] = tp .. 'bizkey:' .. fields[2] end
  if fields[1] and fields[1] ~= '' then keys[#keys + 1] = tp .. 'tag:' .. fields[1] end
  return keys
end

local function unlabel(tp, id, packed, h)
  for _, key in ipairs(labelKeys(tp, packed, h)) do redis.call('ZREM', key, id) end
end
