--[[ due-jobs: finds a partition's earliest due delayed jobs; scripts.ts inserts it into promote and reserve.
  dueJobs(dueidx, tp, now, limit, leave) answers up to `limit` jobs with runAt <= now, earliest first, as
  two lists: `ids`, and `sets`, the due-index member of each job's set. Jobs due at the same instant come
  set by set, in the order the sets were read (due-index order), and in id order within a set, so a call
  empties whole sets rather than taking a few jobs from each: every set a call touches costs its writes
  (ZREM, a new head, the due index), and a burst's sets hold about 40 jobs each.
  `leave(member, headAt)`, when given, answers true for a delayed set to pass over.
]]
local dueReadPages = 7 -- pages of due-index heads read at most (32, 128, … 4096 when sets are passed over)

local prefixes = {} -- formatted once per distinct score: a burst's jobs share a few
local function prefixOf(score)
  local p = prefixes[score]
  if not p then
    p = string.format('%016d', tonumber(score))
    prefixes[score] = p
  end
  return p
end

-- Due-index members are `<topic>#<bucket>`, the suffix of each delayed set's key, in order of their heads.
-- Once `limit` candidates are in hand their limit-th time is a cut: a set whose head is not earlier cannot
-- improve them, and later sets are read only up to it. The first `limit` heads are enough (each set read
-- adds at least its head), so a large backlog of due sets costs about `limit` reads, not one per set.
-- Candidates are trimmed back to `limit` when they reach twice that, not after every set.
local function dueJobs(dueidx, tp, now, limit, leave)
  -- Candidates in parallel lists, in the order read: set by set, each set's in (runAt, id) order. That is
  -- already the answer's order while they share one runAt (a burst); otherwise `ordered` sorts them.
  local ids, sets, times, setIndex = {}, {}, {}, {}
  local n, oneTime = 0, true
  local cut
  local setsRead = 0
  local function add(member, at, id)
    n = n + 1
    ids[n], sets[n], times[n], setIndex[n] = id, member, at, setsRead
    if at ~= times[1] then oneTime = false end
  end
  -- Sorted by (runAt, set, id) in C: table.sort on keys `<16-digit runAt><6-digit set index><id>`.
  local function ordered()
    if oneTime then return end
    local keys, at = {}, {}
    for i = 1, n do
      local key = prefixOf(times[i]) .. string.format('%06d', setIndex[i]) .. ids[i]
      keys[i], at[key] = key, i
    end
    table.sort(keys)
    local was = { ids, sets, times, setIndex }
    ids, sets, times, setIndex = {}, {}, {}, {}
    for i = 1, n do
      local k = at[keys[i]]
      ids[i], sets[i], times[i], setIndex[i] = was[1][k], was[2][k], was[3][k], was[4][k]
    end
  end
  local function trim()
    ordered()
    for i = n, limit + 1, -1 do ids[i], sets[i], times[i], setIndex[i] = nil, nil, nil, nil end
    n = math.min(n, limit)
    oneTime = oneTime or times[1] == times[n]
    cut = times[limit]
  end
  -- Pages of heads. Without `leave`, one page of `limit` heads. With sets to pass over, pages start small
  -- (each head read costs Redis a float print, and a burst's first sets usually settle it) and grow, so a
  -- search for a few jobs of one topic still gets past many due sets of others.
  local page = leave and 32 or limit
  local offset, past = 0, false
  for _ = 1, dueReadPages do
    local heads = redis.call('ZRANGE', dueidx, '-inf', int(now), 'BYSCORE', 'WITHSCORES', 'LIMIT', offset, page)
    offset = offset + page
    for h = 1, #heads, 2 do
      local member, head = heads[h], heads[h + 1]
      local headAt = tonumber(head)
      if cut and headAt >= cut then
        past = true
        break
      end
      if not (leave and leave(member, headAt)) then
        local set = tp .. 'delayed:' .. member
        -- The jobs due at the set's head time (its due-index score) are read without scores: each score in
        -- a reply costs Redis a float print, and a burst's jobs share one due time. Then the rest, with scores.
        local run = redis.call('ZRANGE', set, '-inf', head, 'BYSCORE', 'LIMIT', 0, limit)
        for i = 1, #run do add(member, headAt, run[i]) end
        local upto = cut or now
        if #run < limit and headAt < upto then
          local due = redis.call('ZRANGE', set, '(' .. head, int(upto), 'BYSCORE', 'WITHSCORES', 'LIMIT', 0, limit - #run)
          for i = 1, #due, 2 do add(member, tonumber(due[i + 1]), due[i]) end
        end
        setsRead = setsRead + 1
        if n >= 2 * limit or (not cut and n >= limit) then trim() end
      end
    end
    -- Another page only when sets were passed over: without `leave`, `limit` heads always suffice.
    if past or #heads < 2 * page or setsRead >= limit then break end
    page = math.min(page * 4, 4096)
  end
  -- One set's reply is already in order.
  if setsRead > 1 then ordered() end
  for i = n, limit + 1, -1 do ids[i], sets[i] = nil, nil end
  return ids, sets
end

-- A delayed set's topic: its due-index member up to the `#<bucket>` suffix (topics hold no '#').
local function topicOfSet(member)
  return string.sub(member, 1, string.find(member, '#', 1, true) - 1)
end
