--[[ id-index: each topic's jobs of the partition in id order, as a directory of small pages (a tiny B-tree),
  which list.lua walks from a cursor instead of reading every job. `ids:<topic>` (score 0, so in lex order)
  holds each page's bound; page `idp:<topic>#<bound>` (score 0) holds the topic's ids from its bound up to
  the next page's bound (an id below every bound lowers the first page's bound to it). A page keeps at most ID_PAGE_ENTRIES
  ids (64, id-index.ts) and is never written past that, so Redis keeps it a listpack (zset-max-listpack-entries,
  128 by default, and ids of at most zset-max-listpack-value bytes, 64): about an id's length + 4 bytes a job,
  where one skiplist of every id costs several times more. push.lua adds new jobs; purge.lua and delete-ended.lua remove deleted ones;
  upgrade-id-index.lua builds it for a partition written before it existed. A label past a page's worth of
  jobs is paged the same way (label-index.lua). An index is {dir = directory key, pages = page key prefix}.
]]
-- A topic's id index in the partition (ids have no '#', so a page key names one topic and bound).
local function topicIds(tp, topic)
  return { dir = tp .. 'ids:' .. topic, pages = tp .. 'idp:' .. topic .. '#' }
end

local function idPageKey(ix, bound)
  return ix.pages .. bound
end

-- The bound of the page that would hold id: the greatest bound <= id, else the first (nil: no pages).
local function idPageOf(dir, id)
  return redis.call('ZRANGE', dir, '[' .. id, '-', 'BYLEX', 'REV', 'LIMIT', 0, 1)[1]
    or redis.call('ZRANGE', dir, 0, 0)[1]
end

local function idPageAfter(dir, bound)
  return redis.call('ZRANGE', dir, '(' .. bound, '+', 'BYLEX', 'LIMIT', 0, 1)[1]
end

-- Writes ids (sorted) as fresh pages from `bound` on: a key written at most ID_PAGE_ENTRIES members at once
-- stays a listpack, where one that ever held more would stay a skiplist after shrinking.
local function writeIdPages(ix, bound, ids, size)
  for from = 1, #ids, size do
    local members = {}
    for k = from, math.min(from + size - 1, #ids) do
      members[#members + 1] = 0
      members[#members + 1] = ids[k]
    end
    local b = from == 1 and bound or ids[from]
    if from > 1 then redis.call('ZADD', ix.dir, 0, b) end
    redis.call('ZADD', idPageKey(ix, b), unpack(members))
  end
end

-- Adds ids (sorted, new to the index), at most a page's worth per page at a time. A page that
-- would pass ID_PAGE_ENTRIES is written again split: the last page into full pages (generated ids arrive in
-- order, so pages fill up), another into halves, leaving room on both sides.
local function indexIds(ix, ids)
  local dir, i = ix.dir, 1
  while i <= #ids do
    -- Generated ids grow, so most go to the last page: one read finds it.
    local bound, upper = redis.call('ZRANGE', dir, -1, -1)[1], nil
    if not bound or ids[i] < bound then
      bound = redis.call('ZRANGE', dir, '[' .. ids[i], '-', 'BYLEX', 'REV', 'LIMIT', 0, 1)[1]
      if not bound then
        -- Below every bound (or no page yet): the first page takes it, its bound lowered to it, so every
        -- page's ids stay at or above its bound and a split's new bound falls between its neighbours'.
        local first = redis.call('ZRANGE', dir, 0, 0)[1]
        bound = ids[i]
        if first then
          local page = idPageKey(ix, first)
          if redis.call('EXISTS', page) == 1 then redis.call('RENAME', page, idPageKey(ix, bound)) end
          redis.call('ZREM', dir, first)
        end
        redis.call('ZADD', dir, 0, bound)
      end
      upper = idPageAfter(dir, bound)
    end
    local adding = {}
    while i <= #ids and (not upper or ids[i] < upper) and #adding < ID_PAGE_ENTRIES do
      adding[#adding + 1] = ids[i]
      i = i + 1
    end
    local page = idPageKey(ix, bound)
    local size = redis.call('ZCARD', page)
    local top = not upper and size + #adding > ID_PAGE_ENTRIES and redis.call('ZRANGE', page, -1, -1)[1]
    if size + #adding <= ID_PAGE_ENTRIES then
      writeIdPages(ix, bound, adding, ID_PAGE_ENTRIES)
    elseif top and adding[1] > top then
      -- Appended after the last page's ids (generated ids): fill it, and the rest open new pages.
      local fill, rest = {}, {}
      for k, id in ipairs(adding) do
        if k <= ID_PAGE_ENTRIES - size then fill[#fill + 1] = id else rest[#rest + 1] = id end
      end
      if #fill > 0 then writeIdPages(ix, bound, fill, ID_PAGE_ENTRIES) end
      redis.call('ZADD', ix.dir, 0, rest[1])
      writeIdPages(ix, rest[1], rest, ID_PAGE_ENTRIES)
    else
      local all = redis.call('ZRANGE', page, 0, -1)
      for _, id in ipairs(adding) do all[#all + 1] = id end
      table.sort(all)
      redis.call('DEL', page)
      writeIdPages(ix, bound, all, upper and math.ceil(#all / 2) or ID_PAGE_ENTRIES)
    end
  end
end

-- Removes a deleted job's id; a page it empties leaves the directory.
local function unindexId(ix, id)
  local dir = ix.dir
  local bound = idPageOf(dir, id)
  if not bound then return end
  local page = idPageKey(ix, bound)
  redis.call('ZREM', page, id)
  if redis.call('EXISTS', page) == 0 then redis.call('ZREM', dir, bound) end
end

-- Up to n of the index's ids after `after` ('' = from the first), in id order; fewer than n: no more follow.
local function idsAfter(ix, after, n)
  local dir, out = ix.dir, {}
  local bound = after == '' and redis.call('ZRANGE', dir, 0, 0)[1] or idPageOf(dir, after)
  local from = after == '' and '-' or '(' .. after
  while bound do
    local want = math.min(n - #out, ID_PAGE_ENTRIES)
    for _, id in ipairs(redis.call('ZRANGE', idPageKey(ix, bound), from, '+', 'BYLEX', 'LIMIT', 0, want)) do
      out[#out + 1] = id
    end
    if #out >= n then return out end
    bound, from = idPageAfter(dir, bound), '-'
  end
  return out
end
