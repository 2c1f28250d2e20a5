--[[ expire-due: ready → expired for a partition's jobs whose ttl ran out (runAt + ttlMs <= now), at most
  `limit`, earliest expiry first; scripts.ts inserts it into expire and reserve (reserve runs it first, so
  it never hands out such a job, whatever the scheduler did). Needs ended-log.lua. Returns the expired
  jobs as a flat list id, topic, id, topic… (their events are emitted by the caller).
]]
local EXPIRED_REASON = 'ttl elapsed before a consumer reserved it'
local function expireDue(keys, tp, now, limit, node)
  local jobs, expiry, counts = keys[1], keys[4], keys[6]
  local expired, ended = {}, {}
  for _, id in ipairs(redis.call('ZRANGE', expiry, '-inf', int(now), 'BYSCORE', 'LIMIT', 0, limit)) do
    redis.call('ZREM', expiry, id)
    local packed = redis.call('HGET', jobs, id)
    local h = packed and readHead(packed)
    if h and h.state == STATE_READY then
      local at = stampAfter(h, now)
      readyRemove(tp, counts, h, id)
      h.state, h.finishedAt = STATE_EXPIRED, at
      ended[#ended + 1] = at
      ended[#ended + 1] = id
      redis.call('HINCRBY', counts, countOf(h.topic, STATE_READY), -1)
      redis.call('HINCRBY', counts, countOf(h.topic, STATE_EXPIRED), 1)
      redis.call('HSET', jobs, id, rewrite(packed, h, at, EVENT_EXPIRE, EXPIRED_REASON, node))
      expired[#expired + 1] = id
      expired[#expired + 1] = h.topic
    end
  end
  if #ended > 0 then logEndedAt(keys[5], ended) end
  return expired
end
