--[[ finish: reserved → finished for each (id, token) pair, fenced by the reservation token. Finishes
  made in one event-loop turn arrive together (PartitionBatcher), so a drain costs one call per batch.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] node index  then triples: id, token, now (ms)
  Returns: one reply per triple, in order: {OUTCOME_OK, record as stored} | {OUTCOME_REPEATED, record as
           stored}: already finished with this token (nothing changes) | {OUTCOME_NOT_FOUND}
           | refuseUnlessReserved's refusal.
]]
local jobs, reserved, endedKey, counts, tp = KEYS[1], KEYS[3], KEYS[5], KEYS[6], ARGV[1]
local node = tonumber(ARGV[2])
local ids = {}
for i = 3, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
-- One HMGET and one HSET for the batch (at most PartitionBatcher's chunk): a redis.call per job costs
-- more than the command. `done` makes a job named twice in one batch finish once (the second sees it
-- finished, as it would one call later).
local packs = redis.call('HMGET', jobs, unpack(ids))
local out, done, made, finished, stored, ended, freed = {}, {}, {}, {}, {}, {}, {}
local h = {} -- each job's head in turn
for k = 1, #ids do
  local i = 3 * k
  local id, token, now = ids[k], ARGV[i + 1], tonumber(ARGV[i + 2])
  local packed = packs[k]
  if done[id] then
    out[k] = done[id] == token and { OUTCOME_REPEATED, made[id] } or { OUTCOME_WRONG_STATE, STATE_FINISHED }
  elseif not packed then
    out[k] = { OUTCOME_NOT_FOUND }
  else
    readHead(packed, h)
    local refused = refuseUnlessReserved(h, token)
    if h.state == STATE_FINISHED and h.token == token then
      out[k] = { OUTCOME_REPEATED, packed }
    elseif refused then
      out[k] = refused
    else
      now = stampAfter(h, now)
      -- The token stays in the finished record: a repeat of this finish is answered as done.
      h.state, h.deadline, h.finishedAt = STATE_FINISHED, false, now
      done[id] = token
      ended[#ended + 1] = now
      ended[#ended + 1] = id
      finished[h.topic] = (finished[h.topic] or 0) + 1
      if h.group then
        local groups = freed[h.topic] or {}
        freed[h.topic] = groups
        groups[h.group] = (groups[h.group] or 0) + 1
      end
      local packedNow = rewrite(packed, h, now, EVENT_FINISH, false, node)
      stored[#stored + 1] = id
      stored[#stored + 1] = packedNow
      made[id] = packedNow
      out[k] = { OUTCOME_OK, packedNow }
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
for topic, groups in pairs(freed) do
  for group, n in pairs(groups) do groups[group] = -n end
  groupsHeld(groupKeyPrefix(tp), topic, groups)
end
for topic, n in pairs(finished) do
  redis.call('HINCRBY', counts, countOf(topic, STATE_RESERVED), -n)
  redis.call('HINCRBY', counts, countOf(topic, STATE_FINISHED), n)
end
return out
