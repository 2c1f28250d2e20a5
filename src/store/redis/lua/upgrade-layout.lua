--[[ upgrade-layout: one slice of the upgrade of a partition in an older record layout to the current one, in
  place; the records are unchanged. Layout 4 adds the due-time counters (`due:<topic>`, due-counters.ts), built
  from the delayed sets; layout 5 the bizKey and tag indexes (label-index.lua), built from the records; layout 6
  each topic's due index (due-index.lua), copied from the partition's due index; layout 7 each topic's id index
  (id-index.lua), which node-registration.ts builds slice by slice before the first call.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] the layout to upgrade from (3 to 6)  ARGV[3] the layout after (7)
  ARGV[4] entries read per call
  Returns: 1 when the upgrade is done (the partition is now in layout ARGV[3]), 2 when slices remain, 0 when the
  partition is not in layout ARGV[2] (another process finished it).
  A call reads about ARGV[4] entries, so it holds Redis that long whatever the partition's size; the progress
  (`#upgrade` in the counts hash: phase, then two positions) is read and written by the call itself, so calls of
  several processes share the work and none repeats a slice. The partition keeps its old layout until the last
  slice, so no delayq of the new layout serves it before; one of the old layout writing it meanwhile is not
  counted (as after a whole upgrade, every delayq writing the partition must be of the new layout).
]]
local jobs, dueidx, counts, tp = KEYS[1], KEYS[2], KEYS[6], ARGV[1]
local from, budget = ARGV[2], tonumber(ARGV[4])
if redis.call('HGET', counts, '#layout') ~= from then return 0 end
local progress = redis.call('HGET', counts, '#upgrade')
local phase, a, b
if progress then
  phase, a, b = string.match(progress, '^(%a+)|([^|]*)|([^|]*)$')
else
  local first = { ['3'] = 'due', ['4'] = 'labels', ['5'] = 'heads', ['6'] = 'done' }
  phase, a, b = first[from], '0', '0'
end
local function save(p, x, y)
  redis.call('HSET', counts, '#upgrade', p .. '|' .. x .. '|' .. y)
  return 2
end

-- The due-time counters from the delayed sets: `a` the due-index member's rank, `b` the rank in its set.
if phase == 'due' then
  local member, at, finished = tonumber(a), tonumber(b), false
  while budget > 0 do
    local name = redis.call('ZRANGE', dueidx, member, member)[1]
    if not name then
      finished = true
      break
    end
    -- A due-index member is `<topic>#<bucket>` (topics hold no '#').
    local topic = string.match(name, '^(.*)#[^#]*$')
    local scores = redis.call('ZRANGE', tp .. 'delayed:' .. name, at, at + budget - 1, 'WITHSCORES')
    for s = 2, #scores, 2 do dueCount(topic, tonumber(scores[s]), 1) end
    local read = #scores / 2
    -- A set read to its end moves on to the next member; each member visited counts, an empty one included.
    if read < budget then member, at = member + 1, 0 else at = at + read end
    budget = budget - math.max(read, 1)
  end
  dueFlush(tp)
  if not finished then return save('due', member, at) end
  return save('labels', '0', '0')
end

-- The bizKey and tag indexes from the records: `a` the HSCAN cursor.
if phase == 'labels' then
  local page = redis.call('HSCAN', jobs, a, 'COUNT', budget)
  local fields = page[2]
  for i = 1, #fields, 2 do
    local id, packed = fields[i], fields[i + 1]
    for _, l in ipairs(labelsOf(packed, readHead(packed))) do addLabelled(tp, l[1], l[2], { id }) end
  end
  if page[1] ~= '0' then return save('labels', page[1], '0') end
  return save('heads', '0', '0')
end

-- Each topic's due index from the partition's: `a` the rank in the due index. (From layout 6 only the id
-- index was missing, built before the first call: nothing is left to do here.)
if phase == 'heads' then
  local first = tonumber(a)
  local heads = redis.call('ZRANGE', dueidx, first, first + budget - 1, 'WITHSCORES')
  for i = 1, #heads, 2 do setDueHead(dueidx, tp, heads[i], heads[i + 1]) end
  if #heads / 2 >= budget then return save('heads', first + budget, '0') end
end
redis.call('HDEL', counts, '#upgrade')
redis.call('HSET', counts, '#layout', ARGV[3])
return 1
