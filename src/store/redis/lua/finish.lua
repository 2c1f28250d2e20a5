--[[ finish: reserved → finished for each (id, token) pair, fenced by the reservation token. Finishes
  made in one event-loop turn arrive together (PartitionBatcher), so a drain costs one call per batch.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] node index  then triples: id, token, now (ms)
  Returns: one reply per triple, in order: {0, packed record as stored} | {1, record as stored}: already
           finished with this token (a repeat: nothing changes) | {-1} not found | {-2, state} not reserved
           | {-3, 3} token mismatch.
]]
local jobs, reserved, endedKey, counts = KEYS[1], KEYS[3], KEYS[5], KEYS[6]
local node = tonumber(ARGV[2])
local ids = {}
for i = 3, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
-- One HMGET and one HSET for the batch (at most PartitionBatcher's chunk): a redis.call per job costs
-- more than the command. `done` makes a job named twice in one batch finish once (the second sees it
-- finished, as it would one call later).
local packs = redis.call('HMGET', jobs, unpack(ids))
local out, done, made, finished, stored, ended = {}, {}, {}, {}, {}, {}
local h = {} -- each job's head in turn
for k = 1, #ids do
  local i = 3 * k
  local id, token, now = ids[k], ARGV[i + 1], tonumber(ARGV[i + 2])
  local packed = packs[k]
  if done[id] then
    out[k] = done[id] == token and { 1, made[id] } or { -2, 4 }
  elseif not packed then
    out[k] = { -1 }
  else
    readHead(packed, h)
    if h.state == 4 and h.token == token then
      out[k] = { 1, packed }
    elseif h.state ~= 3 then
      out[k] = { -2, h.state }
    elseif h.token ~= token then
      out[k] = { -3, 3 }
    else
      now = stampAfter(h, now)
      -- The token stays in the finished record: a repeat of this finish is answered as done.
      h.state, h.deadline, h.finishedAt = 4, false, now
      done[id] = token
      ended[#ended + 1] = now
      ended[#ended + 1] = id
      finished[h.topic] = (finished[h.topic] or 0) + 1
      local packedNow = rewrite(packed, h, now, 5, false, node)
      stored[#stored + 1] = id
      stored[#stored + 1] = packedNow
      made[id] = packedNow
      out[k] = { 0, packedNow }
    end
  end
end
if #stored > 0 then
  redis.call('HSET', jobs, unpack(stored))
  logEndedAt(endedKey, ended)
  local gone = {}
  for i = 2, #ended, 2 do gone[#gone + 1] = ended[i] end
  redis.call('ZREM', reserved, unpack(gone))
end
for topic, n in pairs(finished) do
  redis.call('HINCRBY', counts, topic .. '|3', -n)
  redis.call('HINCRBY', counts, topic .. '|4', n)
end
return out
