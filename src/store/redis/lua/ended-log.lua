--[[ ended-log: the index that purge walks to find terminal jobs past their retention; scripts.ts inserts
  it into the scripts that end jobs (finish, bury, cancel, expire) and into purge.
  Each job that ends is appended to the list `<ended>:<slot>`, slot = endedSlot(finishedAt), its minute,
  and the zset `<ended>:slots` holds each slot with its start time: a list append is cheaper in time and
  memory than an insert into one sorted set of every ended job (docs/performance.md). What a
  list cannot do, remove one id, is left to purge: a job redriven after it died keeps its entry, and purge
  drops an entry whose job is no longer terminal or ended in another slot (it was appended again there).
]]
local ENDED_SLOT_MS = 60000

-- The minute of the log a job that ended at `at` is filed under.
local function endedSlot(at)
  return math.floor(at / ENDED_SLOT_MS)
end

local function appendToSlot(endedKey, slot, ids)
  redis.call('RPUSH', endedKey .. ':' .. slot, unpack(ids))
  redis.call('ZADD', endedKey .. ':slots', 'NX', slot * ENDED_SLOT_MS, slot)
end

-- Appends ids that ended at `at`.
local function logEnded(endedKey, at, ids)
  appendToSlot(endedKey, endedSlot(at), ids)
end

-- Appends jobs that ended at various times: `ended` is {at1, id1, at2, id2, …}; one append per slot.
local function logEndedAt(endedKey, ended)
  local bySlot = {}
  for i = 1, #ended, 2 do
    local slot = endedSlot(ended[i])
    local ids = bySlot[slot]
    if not ids then
      ids = {}
      bySlot[slot] = ids
    end
    ids[#ids + 1] = ended[i + 1]
  end
  for slot, ids in pairs(bySlot) do appendToSlot(endedKey, slot, ids) end
end
