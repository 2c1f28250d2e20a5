--[[ due-index: every change to the head of a delayed set goes through here. The partition's due index
  (KEYS[2], `topic#bucket` → the set's earliest runAt) orders all sets for the promoter; each topic's own
  index (`topicdue:<topic>`, the same members and scores) makes the topic's next due time one ZRANGE 0 0
  (topic stats), where the shared index would have to be read whole.
]]
local function topicDueKey(tp, member)
  return tp .. 'topicdue:' .. string.match(member, '^(.*)#[^#]*$')
end

-- The set's head is now `at`, or the set is empty (at false or nil).
local function setDueHead(dueidx, tp, member, at)
  if at then
    redis.call('ZADD', dueidx, at, member)
    redis.call('ZADD', topicDueKey(tp, member), at, member)
  else
    redis.call('ZREM', dueidx, member)
    redis.call('ZREM', topicDueKey(tp, member), member)
  end
end

-- A job due at `at` joined the set: the set's head moves to `at` when earlier.
local function lowerDueHead(dueidx, tp, member, at)
  redis.call('ZADD', dueidx, 'LT', at, member)
  redis.call('ZADD', topicDueKey(tp, member), 'LT', at, member)
end

-- Jobs left the set: its head is read again.
local function refreshDueHead(dueidx, tp, member)
  setDueHead(dueidx, tp, member, redis.call('ZRANGE', tp .. 'delayed:' .. member, 0, 0, 'WITHSCORES')[2])
end
