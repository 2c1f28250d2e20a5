--[[ delete-ended: deletes terminal jobs with their outcome and retention entries, either the ids given
  (ARGV[2] = 'ids') or those of the retention schedule due by ARGV[3] (ARGV[2] = 'retained'), at most
  ARGV[4] schedule entries looked at. The schedule (`retain` zset: id → when to look again) is lazy:
  set-retention puts a job at its runAt, and each look moves it to when it could next be due (its TTR
  deadline, its runAt, or its end + retention), so a job is looked at a few times in its life.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] mode  then the ids, or ARGV[3] now (ms) and ARGV[4] limit
  Returns: the ids of the jobs deleted. Ended-log entries of deleted jobs are left for purge to drop.
]]
local jobs, counts, tp = KEYS[1], KEYS[6], ARGV[1]
local outcomes, retention, retain = tp .. 'outcomes', tp .. 'retention', tp .. 'retain'
local deleted = {}

local function forget(id)
  redis.call('HDEL', outcomes, id)
  redis.call('HDEL', retention, id)
  redis.call('ZREM', retain, id)
end

local function delete(id, h, packed)
  if h.state == STATE_DEAD then redis.call('ZREM', tp .. 'dead:' .. h.topic, id) end
  unlabel(tp, id, packed, h)
  unindexId(topicIds(tp, h.topic), id)
  redis.call('HINCRBY', counts, countOf(h.topic, h.state), -1)
  redis.call('HDEL', jobs, id)
  forget(id)
  deleted[#deleted + 1] = id
end

if ARGV[2] == 'ids' then
  for i = 3, #ARGV do
    local id = ARGV[i]
    local packed = redis.call('HGET', jobs, id)
    if packed then
      local h = readHead(packed)
      if TERMINAL[h.state] then delete(id, h, packed) end
    end
  end
  return deleted
end

local now, limit = tonumber(ARGV[3]), tonumber(ARGV[4])
for _, id in ipairs(redis.call('ZRANGE', retain, '-inf', now, 'BYSCORE', 'LIMIT', 0, limit)) do
  local packed = redis.call('HGET', jobs, id)
  if not packed then
    forget(id)
  else
    local h = readHead(packed)
    if h.state == STATE_FINISHED or h.state == STATE_DEAD then
      local kept = redis.call('HGET', retention, id) or ','
      local finishedMs, deadMs = string.match(kept, '^(%d*),(%d*)$')
      local ms = tonumber(h.state == STATE_FINISHED and finishedMs or deadMs)
      if not ms then
        redis.call('ZREM', retain, id) -- the store-wide retention applies: purge deletes it
      elseif h.finishedAt + ms <= now then
        delete(id, h, packed)
      else
        redis.call('ZADD', retain, h.finishedAt + ms, id)
      end
    elseif h.state == STATE_RESERVED then
      redis.call('ZADD', retain, math.max(h.deadline, now + 1), id)
    elseif h.state == STATE_DELAYED then
      redis.call('ZADD', retain, math.max(h.runAt, now + 1), id)
    elseif h.state == STATE_READY then
      -- Waiting for a consumer: look again after as long as it has waited (1 s to 1 min).
      redis.call('ZADD', retain, now + math.min(math.max(now - (h.readyAt or now), 1000), 60000), id)
    else
      forget(id) -- cancelled or expired: the store-wide retention applies
    end
  end
end
return deleted
