--[[ cancel: delayed | ready | reserved → cancelled for each (id, now, reason) triple. Cancels made in one
  event-loop turn arrive together (PartitionBatcher), so a bulk cancel's chunk costs one call per partition.
  KEYS[1] jobs hash  KEYS[2] due index  KEYS[3] reserved  KEYS[4] expiry  KEYS[5] ended  KEYS[6] counts
  ARGV[1] topic key prefix  ARGV[2] node index  then triples: id, now (ms), reason ('\0' = none)
  Returns: one reply per triple, in order: {OUTCOME_OK, record as stored, state before} (STATE_RESERVED: it
           was out with a consumer or a sink) | {OUTCOME_NOT_FOUND} | {OUTCOME_WRONG_STATE, state}.
]]
local jobs, dueidx, reserved, expiry, endedKey, counts, tp = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[1]
local node = tonumber(ARGV[2])
local ids = {}
for i = 3, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
-- One HMGET and one HSET for the batch; the sets a job leaves get one ZREM per set. `made` holds a record
-- this call changed, so a job named twice is refused the second time, as it would be one call later.
local packs = redis.call('HMGET', jobs, unpack(ids))
local out, made, stored, ended, moved = {}, {}, {}, {}, {}
local delayedOut, readyOut, reservedOut = {}, {}, {}
for k = 1, #ids do
  local i = 3 * k
  local id, now = ids[k], tonumber(ARGV[i + 1])
  local packed = made[id] or packs[k]
  if not packed then
    out[k] = { OUTCOME_NOT_FOUND }
  else
    local h = readHead(packed)
    local topic, state = h.topic, h.state
    if state == STATE_DELAYED then
      local member = topic .. '#' .. int(h.bucket)
      local leaving = delayedOut[member] or {}
      delayedOut[member] = leaving
      leaving[#leaving + 1] = id
      dueCount(topic, h.runAt, -1)
    elseif state == STATE_READY then
      readyRemove(tp, counts, h, id)
      readyOut[#readyOut + 1] = id
    elseif state == STATE_RESERVED then
      reservedOut[#reservedOut + 1] = id
      if h.group then groupHeld(groupKeyPrefix(tp), topic, h.group, -1) end
    else
      out[k] = { OUTCOME_WRONG_STATE, state }
    end
    if not out[k] then
      now = stampAfter(h, now)
      h.state, h.token, h.deadline, h.finishedAt = STATE_CANCELLED, false, false, now
      ended[#ended + 1] = now
      ended[#ended + 1] = id
      moved[countOf(topic, state)] = (moved[countOf(topic, state)] or 0) - 1
      moved[countOf(topic, STATE_CANCELLED)] = (moved[countOf(topic, STATE_CANCELLED)] or 0) + 1
      local reason = ARGV[i + 2] ~= '\0' and ARGV[i + 2] or false
      local rec = rewrite(packed, h, now, EVENT_CANCEL, reason, node)
      if not made[id] then stored[#stored + 1] = id end
      made[id] = rec
      out[k] = { OUTCOME_OK, rec, state }
    end
  end
end
for member, leaving in pairs(delayedOut) do
  redis.call('ZREM', tp .. 'delayed:' .. member, unpack(leaving))
  refreshDueHead(dueidx, tp, member)
end
dueFlush(tp)
if #readyOut > 0 then redis.call('ZREM', expiry, unpack(readyOut)) end
if #reservedOut > 0 then redis.call('ZREM', reserved, unpack(reservedOut)) end
if #stored > 0 then
  local fields = {}
  for _, id in ipairs(stored) do
    fields[#fields + 1] = id
    fields[#fields + 1] = made[id]
  end
  redis.call('HSET', jobs, unpack(fields))
  logEndedAt(endedKey, ended)
end
for field, n in pairs(moved) do
  if n ~= 0 then redis.call('HINCRBY', counts, field, n) end
end
return out
