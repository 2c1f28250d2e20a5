--[[ label-index: the partition's indexes of jobs by bizKey and by tag, in id order, which list.lua walks
  instead of every job of the partition. A label holding at most ID_PAGE_ENTRIES jobs here is one sorted set
  `bizkey:<bizKey>` / `tag:<tag>` (score 0, so members go in id order: a listpack, the smallest form); the
  push that would take it past that turns it into pages as a topic's id index (id-index.lua): directory
  `bizkeyd:<bizKey>` / `tagd:<tag>`, pages `bizkeyp:<bizKey>#<bound>` / `tagp:<tag>#<bound>`. A set that grew
  past two pages before labels were paged stays one set. push.lua adds a job with a label; the scripts that
  delete a record remove it; upgrade-layout.lua builds them for a partition written before they existed.
]]
-- A label's one sorted set, and its paged index (used once its directory exists).
local function labelIndex(tp, family, label)
  return tp .. family .. ':' .. label, { dir = tp .. family .. 'd:' .. label, pages = tp .. family .. 'p:' .. label .. '#' }
end

-- The labels of a stored job (none, one or two), as {family, label}.
local function labelsOf(packed, h)
  local fields, labels = readBody(packed, h), {}
  if fields[2] and fields[2] ~= '' then labels[#labels + 1] = { 'bizkey', fields[2] } end
  if fields[1] and fields[1] ~= '' then labels[#labels + 1] = { 'tag', fields[1] } end
  return labels
end

-- Adds ids (sorted, new to the label) to the label's index.
local function addLabelled(tp, family, label, ids)
  local set, ix = labelIndex(tp, family, label)
  -- A label is one set or paged, never both: only a label without its set may be paged.
  local size = redis.call('ZCARD', set)
  if size == 0 and redis.call('EXISTS', ix.dir) == 1 then return indexIds(ix, ids) end
  -- A set past two pages (grown before labels were paged) stays one: paging it would read it whole.
  if size + #ids <= ID_PAGE_ENTRIES or size > 2 * ID_PAGE_ENTRIES then
    local members = {}
    for k, id in ipairs(ids) do
      members[2 * k - 1] = 0
      members[2 * k] = id
    end
    redis.call('ZADD', set, unpack(members))
    return
  end
  -- Past a page: the set's ids and the new ones become the label's pages.
  local all = redis.call('ZRANGE', set, 0, -1)
  for _, id in ipairs(ids) do all[#all + 1] = id end
  table.sort(all)
  redis.call('DEL', set)
  indexIds(ix, all)
end

local function unlabel(tp, id, packed, h)
  for _, l in ipairs(labelsOf(packed, h)) do
    local set, ix = labelIndex(tp, l[1], l[2])
    if redis.call('EXISTS', ix.dir) == 1 then unindexId(ix, id) else redis.call('ZREM', set, id) end
  end
end

-- Up to n of the label's ids after `after` ('' = from the first), in id order; fewer than n: no more follow.
local function labelIdsAfter(tp, family, label, after, n)
  local set, ix = labelIndex(tp, family, label)
  if redis.call('EXISTS', ix.dir) == 1 then return idsAfter(ix, after, n) end
  return redis.call('ZRANGE', set, after == '' and '-' or '(' .. after, '+', 'BYLEX', 'LIMIT', 0, n)
end
