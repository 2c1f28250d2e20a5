--[[ purge: deletes terminal jobs (record and history) that ended before ARGV[2], at most ARGV[3], oldest
  slot of the ended log first (lua/ended-log.lua).
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] before (ms, exclusive)  ARGV[3] limit
  Returns: the ids of the jobs deleted (the client drops their job numbers, kept under another hash tag).
  Fewer than the limit means nothing is left to delete, unless the limit's worth of log entries read
  included stale ones (jobs redriven since), which the next call skips.
]]
local jobs, ended, counts, tp = KEYS[1], KEYS[5], KEYS[6], ARGV[1]
local before, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local deleted, read = {}, 0

local function delete(id, h, packed)
  if h.state == STATE_DEAD then redis.call('ZREM', tp .. 'dead:' .. h.topic, id) end
  unlabel(tp, id, packed, h)
  unindexId(topicIds(tp, h.topic), id)
  redis.call('HINCRBY', counts, countOf(h.topic, h.state), -1)
  redis.call('HDEL', jobs, id)
  -- The job's side entries (outcome, retention: redis-outcomes.ts) go with it.
  redis.call('HDEL', tp .. 'outcomes', id)
  redis.call('HDEL', tp .. 'retention', id)
  redis.call('ZREM', tp .. 'retain', id)
  deleted[#deleted + 1] = id
end

-- The log, slot by slot. A slot that began before the cutoff may still hold jobs that ended after it
-- (the slot's last minute, or a late clock): its entries are read in order and the walk stops at the first
-- such job, which is left for a later purge with the rest of its slot.
local slotsKey = ended .. ':slots'
-- At most `limit` of them: each either gives an entry or, empty, is removed (years of minutes may wait).
local slots = redis.call('ZRANGE', slotsKey, '-inf', '(' .. before, 'BYSCORE', 'LIMIT', 0, limit)
for _, slot in ipairs(slots) do
  if read >= limit then break end
  local key, stop = ended .. ':' .. slot, false
  local ids = redis.call('LRANGE', key, 0, limit - read - 1)
  local taken = 0
  for _, id in ipairs(ids) do
    local packed = redis.call('HGET', jobs, id)
    local h = packed and readHead(packed)
    -- Terminal and ended in this slot: a job to purge, or where the walk stops.
    -- Otherwise the entry is stale (redriven, ended again elsewhere, or deleted): dropped.
    if h and TERMINAL[h.state] and h.finishedAt and endedSlot(h.finishedAt) == tonumber(slot) then
      if h.finishedAt >= before then
        stop = true
        break
      end
      delete(id, h, packed)
    end
    taken = taken + 1
  end
  read = read + taken
  if taken > 0 then redis.call('LTRIM', key, taken, -1) end
  if stop then break end
  if redis.call('EXISTS', key) == 0 then redis.call('ZREM', slotsKey, slot) end
end
return deleted
