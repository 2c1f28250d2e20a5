--[[ list: this partition's first ARGV[8]+1 jobs by id after the cursor that match the filters (read only).
  Cost: with a bizKey or tag it walks that label's index (label-index.lua) from the cursor, reading about
  the jobs it answers (more when other filters pass over some); else with a topic and a state of delayed,
  ready or dead it reads that topic's set; otherwise every id of the partition (O(jobs)).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] topic  ARGV[3] state code ('' = any)  ARGV[4] bizKey  ARGV[5] tag
  ARGV[6] cursor (ids after it; '' = from the start)  ARGV[7] unused  ARGV[8] limit; '\0' = no filter
  Returns: {id1, record1, id2, record2, …} ordered by id, the records as stored.
]]
local jobs, tp = KEYS[1], ARGV[1]
local topic, state, bizKey, tag, cursor = ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]
local limit = tonumber(ARGV[8])
local out, found = {}, 0
-- Appends the job when it matches; true once the page (limit + 1, so the caller sees there is more) is full.
local function take(id)
  local packed = redis.call('HGET', jobs, id)
  if not packed then return false end
  local h = readHead(packed)
  local body = (bizKey ~= '\0' or tag ~= '\0') and readBody(packed, h)
  if (topic == '\0' or h.topic == topic) and (not state or h.state == state)
    and (bizKey == '\0' or body[2] == bizKey) and (tag == '\0' or body[1] == tag) then
    out[#out + 1] = id
    out[#out + 1] = packed
    found = found + 1
  end
  return found > limit
end
local label = (bizKey ~= '\0' and bizKey ~= '' and tp .. 'bizkey:' .. bizKey)
  or (tag ~= '\0' and tag ~= '' and tp .. 'tag:' .. tag)
if label then
  -- The index is in id order already: read it from the cursor, a page's worth at a time.
  local from = cursor == '' and '-' or '(' .. cursor
  while true do
    local batch = redis.call('ZRANGE', label, from, '+', 'BYLEX', 'LIMIT', 0, limit + 1)
    for _, id in ipairs(batch) do
      if take(id) then return out end
    end
    if #batch <= limit then return out end
    from = '(' .. batch[#batch]
  end
end
local ids
if topic ~= '\0' and state == STATE_DELAYED then
  ids = {}
  for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if string.sub(member, 1, #topic + 1) == topic .. '#' then
      for _, id in ipairs(redis.call('ZRANGE', tp .. 'delayed:' .. member, 0, -1)) do ids[#ids + 1] = id end
    end
  end
elseif topic ~= '\0' and state == STATE_DEAD then
  ids = redis.call('ZRANGE', tp .. 'dead:' .. topic, 0, -1)
elseif topic ~= '\0' and state == STATE_READY then
  ids = {}
  for i, m in ipairs(redis.call('ZRANGE', tp .. 'ready:' .. topic, 0, -1)) do ids[i] = string.sub(m, READY_ID_AT) end
else
  ids = redis.call('HKEYS', jobs)
end
local after = {}
for _, id in ipairs(ids) do
  if id > cursor then after[#after + 1] = id end
end
table.sort(after)
for _, id in ipairs(after) do
  if take(id) then break end
end
return out
