--[[ list: this partition's first ARGV[8]+1 jobs by id after the cursor that match the filters (read only),
  looking at no more than about LIST_BUDGET index entries and records.
  Cost: with a bizKey or tag it walks that label's index (label-index.lua) from the cursor; else with a topic
  that topic's id index (id-index.lua), or its ready or dead set whole when that state is asked and the set
  holds less than half the budget; else the id indexes of the topics with jobs here (of the state, when
  one is asked: the counts hash tells), merged. It reads about the jobs it answers, more when filters pass
  over some, and stops at the budget: then it answers the matches found so far and where it stopped.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] topic  ARGV[3] state code ('' = any)  ARGV[4] bizKey  ARGV[5] tag
  ARGV[6] cursor (ids after it; '' = from the start)  ARGV[7] unused  ARGV[8] limit; '\0' = no filter
  Returns: {through, id1, record1, id2, record2, …} ordered by id, the records as stored. `through` is the
  id up to which the answer is complete: '' when every match after the cursor is in it, else the last id
  looked at (the walk stopped at a full page or at the budget); matches after it may follow.
]]
local jobs, counts, tp = KEYS[1], KEYS[6], ARGV[1]
local topic, state, bizKey, tag, cursor = ARGV[2], tonumber(ARGV[3]), ARGV[4], ARGV[5], ARGV[6]
local limit = tonumber(ARGV[8])
local out, found, spent = { '' }, 0, 0
-- Looks at a job and appends it when it matches; true when the walk stops at it: the page is full (limit + 1,
-- so the caller sees there is more) or the budget is spent.
local function take(id)
  spent = spent + 1
  local packed = redis.call('HGET', jobs, id)
  if packed then
    local h = readHead(packed)
    local body = (bizKey ~= '\0' or tag ~= '\0') and readBody(packed, h)
    if (topic == '\0' or h.topic == topic) and (not state or h.state == state)
      and (bizKey == '\0' or body[2] == bizKey) and (tag == '\0' or body[1] == tag) then
      out[#out + 1] = id
      out[#out + 1] = packed
      found = found + 1
    end
  end
  if found > limit or spent >= LIST_BUDGET then
    out[1] = id
    return true
  end
  return false
end
-- Walks a stream of ids in id order, read by next(after, n): a page's worth (limit + 1) first, then twice as
-- many each time up to 1024 (a filter that passes over jobs reads on in a few long reads, not many short).
local function walk(next)
  local after, n = cursor, limit + 1
  while true do
    local ids = next(after, n)
    spent = spent + #ids
    for _, id in ipairs(ids) do
      if take(id) then return out end
    end
    if #ids < n then return out end
    -- Each id read is looked at too: a read of half the budget left at most ends at the budget.
    after, n = ids[#ids], math.max(1, math.min(2 * n, math.max(1024, limit + 1), math.ceil((LIST_BUDGET - spent) / 2)))
  end
end
local family, label
if bizKey ~= '\0' and bizKey ~= '' then
  family, label = 'bizkey', bizKey
elseif tag ~= '\0' and tag ~= '' then
  family, label = 'tag', tag
end
if label then
  return walk(function(after, n) return labelIdsAfter(tp, family, label, after, n) end)
end
if topic ~= '\0' then
  local held = state and tonumber(redis.call('HGET', counts, countOf(topic, state)) or 0)
  if held and held <= 0 then return out end
  -- A topic's ready or dead set within half the budget is read whole and sorted: a complete page however
  -- many of the topic's jobs are in other states (dead letters and a ready backlog are usually few).
  if (state == STATE_DEAD or state == STATE_READY) and held < LIST_BUDGET / 2 then
    local ids = {}
    if state == STATE_DEAD then
      ids = redis.call('ZRANGE', tp .. 'dead:' .. topic, 0, -1)
    else
      for i, m in ipairs(redis.call('ZRANGE', tp .. 'ready:' .. topic, 0, -1)) do ids[i] = string.sub(m, READY_ID_AT) end
    end
    spent = spent + #ids
    table.sort(ids)
    for _, id in ipairs(ids) do
      -- Fewer than half the budget read, so only a full page stops it.
      if id > cursor and take(id) then return out end
    end
    return out
  end
  return walk(function(after, n) return idsAfter(topicIds(tp, topic), after, n) end)
end
-- Every topic with jobs here (of the state): up to a page of each after `after`, merged; with many topics
-- less of each, so one round reads at most half the budget. The merge is complete up to the least last id
-- of the topics that may have more; the next round starts there.
local topics, seen = {}, {}
local fields = redis.call('HGETALL', counts)
for i = 1, #fields, 2 do
  local name, code = string.match(fields[i], '^(.*)|(%d+)$')
  if name and not seen[name] and (not state or tonumber(code) == state) and tonumber(fields[i + 1]) > 0 then
    seen[name] = true
    topics[#topics + 1] = name
  end
end
local after, each = cursor, math.max(1, math.min(limit + 1, math.floor(LIST_BUDGET / 2 / math.max(#topics, 1))))
while true do
  local merged, through = {}, nil
  for _, t in ipairs(topics) do
    local ids = idsAfter(topicIds(tp, t), after, each)
    spent = spent + #ids
    for _, id in ipairs(ids) do merged[#merged + 1] = id end
    if #ids == each and (not through or ids[#ids] < through) then through = ids[#ids] end
  end
  table.sort(merged)
  for _, id in ipairs(merged) do
    if through and id > through then break end
    if take(id) then return out end
  end
  if not through then return out end
  if spent >= LIST_BUDGET then
    out[1] = through
    return out
  end
  after = through
end
