--[[ push: stores each job as delayed (or ready when runAt <= now) unless its id exists.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] node index  ARGV[3] n jobs, then 12 per job: id, topic, tag, bizKey,
          body, runAt, priority, ttrMs, ttlMs ('' = none), retry, now (ms), delay bucket; tag/bizKey '\0' = null
  Returns: {newHeadAt|nil, r1 … rn}: ri = 1 when created, else the existing record (array).
           newHeadAt is the earliest delayed runAt pushed when it is earlier than this partition's head.
  Record: topic tag bizKey body state runAt priority ttrMs ttlMs retry attempts lastError token deadlineAt
          createdAt readyAt reservedAt finishedAt history bucket; null = false; states 1 delayed … 7 expired.
          A delayed job sits in `delayed:<topic>#<bucket>`; the due index holds `<topic>#<bucket>` → head.
]]
local jobs, dueidx, expiry, counts, tp = KEYS[1], KEYS[2], KEYS[4], KEYS[6], ARGV[1]
local node, n = tonumber(ARGV[2]), tonumber(ARGV[3])
local function opt(s) if s == '\0' then return false end return s end
local head = redis.call('ZRANGE', dueidx, 0, 0, 'WITHSCORES')[2]
head = head and tonumber(head)
local out, earliest, heads, added = {false}, nil, {}, {}
for i = 0, n - 1 do
  local b = 3 + i * 12
  local id, now = ARGV[b + 1], tonumber(ARGV[b + 11])
  local topic, runAt, priority = ARGV[b + 2], tonumber(ARGV[b + 6]), tonumber(ARGV[b + 7])
  local ttl = ARGV[b + 9] ~= '' and tonumber(ARGV[b + 9]) or false
  local ready = runAt <= now
  local state = ready and 2 or 1
  local rec = { topic, opt(ARGV[b + 3]), opt(ARGV[b + 4]), ARGV[b + 5], state, runAt, priority,
    tonumber(ARGV[b + 8]), ttl, ARGV[b + 10], 0, false, false, false, now, ready and now or false,
    false, false, { { 0, 1, state, 0, node, false } }, tonumber(ARGV[b + 12]) }
  if redis.call('HSETNX', jobs, id, cmsgpack.pack(rec)) == 0 then
    out[#out + 1] = cmsgpack.unpack(redis.call('HGET', jobs, id))
  else
    if ready then
      redis.call('ZADD', tp .. 'ready:' .. topic, runAt, string.format('%05d', priority + 32768) .. id)
      if ttl then redis.call('ZADD', expiry, runAt + ttl, id) end
    else
      local member = topic .. '#' .. ARGV[b + 12]
      redis.call('ZADD', tp .. 'delayed:' .. member, runAt, id)
      if not heads[member] or runAt < heads[member] then heads[member] = runAt end
      if not earliest or runAt < earliest then earliest = runAt end
    end
    -- Counters and the due index are written once per topic, after the loop.
    local field = topic .. '|' .. state
    added[field] = (added[field] or 0) + 1
    out[#out + 1] = 1
  end
end
for member, at in pairs(heads) do redis.call('ZADD', dueidx, 'LT', at, member) end
for field, count in pairs(added) do redis.call('HINCRBY', counts, field, count) end
if earliest and (not head or earliest < head) then out[1] = earliest end
return out
